#pragma once
#include <stdexcept>

#include "kernels/cuda_check.hpp"
#include "kernels/flash_backward_kernel.cuh"

namespace attnlab::flash {

// One CTA per (work item, KV head); the hardware scheduler hands them out in order.
template <typename T, int D>
void launch_backward(const BackwardParams& params, int work_items) {
  static bool configured = false;  // per kernel and per process
  if (!configured) {
    CUDA_CHECK(cudaFuncSetAttribute(backward<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    backward_smem_bytes<D>()));
    configured = true;
  }
  const long long ctas = static_cast<long long>(work_items) * params.kv_heads;
  if (ctas == 0) return;
  if (ctas > 0x7fffffffLL) throw std::runtime_error("flash backward: more CTAs than a grid holds");
  backward<T, D><<<static_cast<unsigned>(ctas), kThreads, backward_smem_bytes<D>()>>>(params);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::flash
