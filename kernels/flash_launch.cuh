#pragma once
#include "kernels/cuda_check.hpp"
#include "kernels/flash_launch.hpp"

namespace attnlab::flash {

template <typename T, int D>
void launch_forward(const Params& params, int work_items) {
  static bool configured = false;  // the attribute is per kernel and per process: set it once
  if (!configured) {
    CUDA_CHECK(cudaFuncSetAttribute(forward<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<D>()));
    configured = true;
  }
  const long long blocks = static_cast<long long>(work_items) * params.heads;
  if (blocks == 0) return;
  if (blocks > 0x7fffffffLL) throw std::runtime_error("flash: more work items than a grid can hold");
  forward<T, D><<<static_cast<unsigned>(blocks), kThreads, smem_bytes<D>()>>>(params);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::flash
