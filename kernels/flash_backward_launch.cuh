#pragma once
#include <stdexcept>

#include "kernels/cuda_check.hpp"
#include "kernels/flash_backward_kernel.cuh"
#include "kernels/flash_launch.cuh"

namespace attnlab::flash {

// One CTA per (work item, KV head); the hardware scheduler hands them out in order.
template <typename T, int D>
void launch_backward(const BackwardParams& params, int work_items) {
  const LaunchConfig& config =
      launch_config_of<backward<T, D>>("flash backward " + instance_name<T, D>(), kThreads, backward_smem_bytes<D>());
  const long long ctas = static_cast<long long>(work_items) * params.kv_heads;
  if (ctas == 0) return;
  if (ctas > 0x7fffffffLL) throw std::runtime_error("flash backward: more CTAs than a grid holds");
  backward<T, D><<<static_cast<unsigned>(ctas), kThreads, config.dynamic_shared>>>(params);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::flash
