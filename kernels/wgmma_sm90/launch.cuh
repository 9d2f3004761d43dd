#pragma once
// The Hopper kernel's launchers: the forward's tensor maps and persistent grid, the
// backward's grid, and the rungs of the forward's ladder.
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled: the driver's encoder, fetched through the runtime

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/input_error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/wgmma_sm90/backward_kernel.cuh"
#include "kernels/wgmma_sm90/forward_kernel.cuh"
#include "kernels/wgmma_sm90/launch.hpp"
#include "kernels/wgmma_sm90/rungs.hpp"

namespace attnlab::wgmma_sm90 {

// A tensor map over [positions][heads][D] 16-bit elements, read in boxes of 128
// positions x 64 elements of one head, written to shared memory in the 128-byte
// swizzle that wgmma's descriptors describe. Boxes past the last position read zeros.
template <typename T, int D>
CUtensorMap token_map(const void* base, int heads, std::int64_t positions) {
  static const auto encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !fn)
      throw std::runtime_error("wgmma-sm90: the CUDA driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map;
  const cuuint64_t dims[3] = {cuuint64_t(D), cuuint64_t(heads), cuuint64_t(positions)};
  const cuuint64_t strides[2] = {cuuint64_t(D) * 2, cuuint64_t(heads) * D * 2};  // bytes, dims 1 and 2
  const cuuint32_t box[3] = {64, 1, kRows};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode(
      &map, std::is_same_v<T, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3,
      const_cast<void*>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("wgmma-sm90: cuTensorMapEncodeTiled failed (" + std::to_string(r) + ")");
  return map;
}

// One CTA per SM (its shared memory and 384 threads), each walking the work list.
// `what` names the kernel in the launch line.
template <typename T, int D, ForwardFeatures F, bool counting>
void launch_forward_as(const flash::Params& flash_params, int work_items, std::int64_t positions,
                       const std::string& what) {
  const LaunchConfig& config = flash::launch_config_of<forward<T, D, features_key(F), counting>>(
      what + (counting ? " counting" : ""), kThreads, SharedLayout<D, F>::bytes);
  const long long items = static_cast<long long>(work_items) * flash_params.heads;
  if (items == 0) return;
  if (items > 0x7fffffffLL) throw std::runtime_error("wgmma-sm90: more work items than an int can count");
  Params p{};
  p.flash = flash_params;
  p.q_map = token_map<T, D>(flash_params.q, flash_params.heads, positions);
  p.k_map = token_map<T, D>(flash_params.k, flash_params.kv_heads, positions);
  p.v_map = token_map<T, D>(flash_params.v, flash_params.kv_heads, positions);
  CUDA_CHECK(cudaMemsetAsync(p.flash.work_counter, 0, sizeof(int)));
  const int blocks = static_cast<int>(std::min<long long>(items, config.resident_ctas));
  forward<T, D, features_key(F), counting><<<blocks, kThreads, config.dynamic_shared>>>(p, static_cast<int>(items));
  CUDA_CHECK_LAUNCH();
}

// The kernel built with features F; a launch with counters runs its counting instantiation.
template <typename T, int D, ForwardFeatures F>
void launch_forward_with(const flash::Params& params, int work_items, std::int64_t positions, const std::string& what) {
  params.counts ? launch_forward_as<T, D, F, true>(params, work_items, positions, what)
                : launch_forward_as<T, D, F, false>(params, work_items, positions, what);
}

template <typename T, int D>
void launch_forward(const flash::Params& params, int work_items, std::int64_t positions) {
  launch_forward_with<T, D, shipped_features(D)>(params, work_items, positions,
                                                 "wgmma-sm90 " + flash::instance_name<T, D>());
}

// Calls launch.template operator()<F>() with the features of rung `rung` (from 1).
template <typename Launch, std::size_t... i>
void with_rung_features(int rung, Launch&& launch, std::index_sequence<i...>) {
  ((rung == int(i) + 1 ? launch.template operator()<forward_rungs[i].features>() : void()), ...);
}

// One CTA per (key tile, KV head), as the teaching backward's.
template <typename T, int D, bool counting>
void launch_backward_as(const flash::BackwardParams& params, int work_items) {
  const LaunchConfig& config = flash::launch_config_of<backward<T, D, counting>>(
      "wgmma-sm90 backward " + flash::instance_name<T, D>() + (counting ? " counting" : ""), kBackwardThreads,
      BackwardLayout<D>::bytes);
  const long long ctas = static_cast<long long>(work_items) * params.kv_heads;
  if (ctas == 0) return;
  if (ctas > 0x7fffffffLL) throw std::runtime_error("wgmma-sm90 backward: more CTAs than a grid holds");
  backward<T, D, counting><<<static_cast<unsigned>(ctas), kBackwardThreads, config.dynamic_shared>>>(params);
  CUDA_CHECK_LAUNCH();
}

template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, int work_items) {
  params.counts ? launch_backward_as<T, D, true>(params, work_items)
                : launch_backward_as<T, D, false>(params, work_items);
}

}  // namespace attnlab::wgmma_sm90
