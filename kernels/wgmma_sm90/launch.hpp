#pragma once
// The Hopper kernel's entry points for run_flash and run_flash_backward
// (kernels/run_flash.cu): the flash kernels' parameters, plus the buffer's positions
// for the forward's tensor maps. One launcher per (dtype, head dim), instantiated in
// forward_{bf16,fp16}.cu and backward_{bf16,fp16}.cu; the ladder's rungs in ladder.cu.
// A launch with counters runs the counting instantiation.
#include <cstdint>

#include "kernels/common/params.cuh"
#include "kernels/wgmma_sm90/shape.hpp"

namespace attnlab::wgmma_sm90 {

template <typename T, int D>
void launch_forward(const flash::Params& params, int work_items, std::int64_t positions);
template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, int work_items);

// Rung `rung` (from 1) of the forward's ladder (rungs.hpp), built for bf16 at head dim
// ladder_head_dim only: InputError naming `kernel` (its name) for another dtype or head dim.
void launch_forward_rung(int rung, const char* kernel, const flash::Params& params, int work_items,
                         std::int64_t positions, bool bf16, int head_dim);

}  // namespace attnlab::wgmma_sm90
