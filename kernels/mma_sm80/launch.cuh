#pragma once
// The teaching kernel's launchers, forward and backward, each instantiated per
// (dtype, head dim) in its own .cu file so the instantiations compile in parallel.
#include <algorithm>
#include <stdexcept>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/mma_sm80/backward_kernel.cuh"
#include "kernels/mma_sm80/forward_kernel.cuh"
#include "kernels/mma_sm80/launch.hpp"

namespace attnlab::mma_sm80 {

// A persistent grid: as many CTAs as fit on the GPU at once, each walking the work list.
template <typename T, int D, bool counting>
void launch_forward_as(const Params& params, int work_items) {
  const LaunchConfig& config = flash::launch_config_of<forward<T, D, counting>>(
      std::string("mma-sm80 ") + flash::instance_name<T, D>() + (counting ? " counting" : ""), kThreads,
      smem_bytes<D>());
  const long long items = static_cast<long long>(work_items) * params.heads;
  if (items == 0) return;
  if (items > 0x7fffffffLL) throw std::runtime_error("mma-sm80: more work items than an int can count");
  const int blocks = static_cast<int>(std::min<long long>(items, config.resident_ctas));
  forward<T, D, counting><<<blocks, kThreads, config.dynamic_shared>>>(params, static_cast<int>(items));
  CUDA_CHECK_LAUNCH();
}

template <typename T, int D>
void launch_forward(const Params& params, int work_items) {
  params.counts ? launch_forward_as<T, D, true>(params, work_items)
                : launch_forward_as<T, D, false>(params, work_items);
}

// One CTA per (work item, KV head); the hardware scheduler hands them out in order.
template <typename T, int D, bool counting>
void launch_backward_as(const BackwardParams& params, int work_items) {
  const LaunchConfig& config = flash::launch_config_of<backward<T, D, counting>>(
      std::string("mma-sm80 backward ") + flash::instance_name<T, D>() + (counting ? " counting" : ""), kThreads,
      backward_smem_bytes<D>());
  const long long ctas = static_cast<long long>(work_items) * params.kv_heads;
  if (ctas == 0) return;
  if (ctas > 0x7fffffffLL) throw std::runtime_error("mma-sm80 backward: more CTAs than a grid holds");
  backward<T, D, counting><<<static_cast<unsigned>(ctas), kThreads, config.dynamic_shared>>>(params);
  CUDA_CHECK_LAUNCH();
}

template <typename T, int D>
void launch_backward(const BackwardParams& params, int work_items) {
  params.counts ? launch_backward_as<T, D, true>(params, work_items)
                : launch_backward_as<T, D, false>(params, work_items);
}

}  // namespace attnlab::mma_sm80
