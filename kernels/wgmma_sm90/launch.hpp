#pragma once
// The Hopper kernel's launchers, for run_flash's table (kernels/run_flash.cu): one per
// (dtype, head dim), instantiated in forward_{bf16,fp16}.cu and backward_{bf16,fp16}.cu;
// the ladder's rungs, bf16 at head dim ladder_head_dim only, in ladder.cu. A launch with
// counters runs the counting instantiation.
#include "kernels/common/launchers.hpp"

namespace attnlab::wgmma_sm90 {

template <typename T, int D>
void launch_forward(const flash::Params& params, const flash::LaunchArgs& args);
template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, const flash::LaunchArgs& args);
// Rung `rung` (from 1) of the forward's and of the backward's ladder (rungs.hpp).
template <int rung>
void launch_forward_rung(const flash::Params& params, const flash::LaunchArgs& args);
template <int rung>
void launch_backward_rung(const flash::BackwardParams& params, const flash::LaunchArgs& args);

}  // namespace attnlab::wgmma_sm90
