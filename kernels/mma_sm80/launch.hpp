#pragma once
// The teaching kernel's launchers, for run_flash's table (kernels/run_flash.cu): one per
// (dtype, head dim), instantiated in forward_{bf16,fp16}.cu and backward_{bf16,fp16}.cu.
// A launch with counters runs the counting instantiation.
#include "kernels/common/launchers.hpp"

namespace attnlab::mma_sm80 {

template <typename T, int D>
void launch_forward(const flash::Params& params, const flash::LaunchArgs& args);
template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, const flash::LaunchArgs& args);

}  // namespace attnlab::mma_sm80
