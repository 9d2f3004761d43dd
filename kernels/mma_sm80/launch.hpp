#pragma once
// The teaching kernel's entry points for run_flash and run_flash_backward
// (kernels/run_flash.cu): one launcher per (dtype, head dim), instantiated in
// forward_{bf16,fp16}.cu and backward_{bf16,fp16}.cu. A launch with counters runs
// the counting instantiation.
#include "kernels/common/params.cuh"

namespace attnlab::mma_sm80 {

template <typename T, int D>
void launch_forward(const flash::Params& params, int work_items);
template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, int work_items);

}  // namespace attnlab::mma_sm80
