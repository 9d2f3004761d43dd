#pragma once
// One launcher per (dtype, head dim), each instantiated in its own .cu file so
// the two dtypes compile in parallel.
#include <cuda_runtime.h>

#include "kernels/flash_kernel.cuh"

namespace attnlab::flash {

template <typename T, int D>
void launch_forward(const Params& params, int work_items);

}  // namespace attnlab::flash
