#pragma once
// The Hopper backward's entry point for run_flash_backward (kernels/flash_backward.cu):
// the teaching backward's parameters, over the wgmma forward's work list and tile.
#include "kernels/flash_backward_kernel.cuh"

namespace attnlab::hopper {

template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, int work_items);

}  // namespace attnlab::hopper
