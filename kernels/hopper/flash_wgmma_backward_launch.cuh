#pragma once
// The Hopper backward's launcher: a persistent grid over the (key tile, KV head) items.
#include <algorithm>
#include <stdexcept>

#include "kernels/flash_launch.cuh"
#include "kernels/hopper/flash_wgmma_backward.hpp"
#include "kernels/hopper/flash_wgmma_backward_kernel.cuh"

namespace attnlab::hopper {

// The counter of this file's kernels (they run one at a time, in order).
static __device__ int next_backward_item_counter;

template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, int work_items) {
  const LaunchConfig& config = flash::launch_config_of<hopper::backward<T, D>>(
      "wgmma backward " + flash::instance_name<T, D>(), kBackwardThreads, BackwardLayout<D>::bytes);
  const long long ctas = static_cast<long long>(work_items) * params.kv_heads;
  if (ctas == 0) return;
  if (ctas > 0x7fffffffLL) throw std::runtime_error("wgmma-sm90 backward: more items than an int can count");
  int* next_item = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&next_item), next_backward_item_counter));
  CUDA_CHECK(cudaMemsetAsync(next_item, 0, sizeof(int)));
  const int blocks = static_cast<int>(std::min<long long>(ctas, config.resident_ctas));
  hopper::backward<T, D><<<blocks, kBackwardThreads, config.dynamic_shared>>>(params, static_cast<int>(ctas), next_item);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::hopper
