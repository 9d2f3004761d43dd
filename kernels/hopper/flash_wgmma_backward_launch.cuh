#pragma once
// The Hopper backward's launcher: one CTA per (key tile, KV head), as the teaching backward's.
#include <stdexcept>

#include "kernels/flash_launch.cuh"
#include "kernels/hopper/flash_wgmma_backward.hpp"
#include "kernels/hopper/flash_wgmma_backward_kernel.cuh"

namespace attnlab::hopper {

template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, int work_items) {
  const LaunchConfig& config = flash::launch_config_of<hopper::backward<T, D>>(
      "wgmma backward " + flash::instance_name<T, D>(), kBackwardThreads, BackwardLayout<D>::bytes);
  const long long ctas = static_cast<long long>(work_items) * params.kv_heads;
  if (ctas == 0) return;
  if (ctas > 0x7fffffffLL) throw std::runtime_error("wgmma-sm90 backward: more CTAs than a grid holds");
  hopper::backward<T, D><<<static_cast<unsigned>(ctas), kBackwardThreads, config.dynamic_shared>>>(params);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::hopper
