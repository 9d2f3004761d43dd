#pragma once
// The Hopper kernel's launcher: its tensor maps, its persistent grid, and the rung
// of its ladder that ATTNLAB_WGMMA_RUNG may ask for.
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled: the driver's encoder, fetched through the runtime

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/flash_launch.cuh"
#include "kernels/hopper/flash_wgmma.hpp"
#include "kernels/hopper/flash_wgmma_kernel.cuh"
#include "kernels/hopper/flash_wgmma_rung_variable.hpp"

namespace attnlab::hopper {

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
  const CUresult r = encode(&map, std::is_same_v<T, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                  : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                            3, const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw std::runtime_error("wgmma-sm90: cuTensorMapEncodeTiled failed (" + std::to_string(r) + ")");
  return map;
}

// The scheduler's counter of this file's kernels (they run one at a time, in order).
static __device__ int next_item_counter;

// One CTA per SM (its shared memory and 384 threads), each walking the work list.
// `what` names the kernel in the launch line.
template <typename T, int D, ForwardFeatures F>
void launch_forward_with(const flash::Params& flash_params, int work_items, std::int64_t positions,
                         const std::string& what) {
  const LaunchConfig& config =
      flash::launch_config_of<forward<T, D, features_key(F)>>(what, kThreads, SharedLayout<D, F>::bytes);
  const long long items = static_cast<long long>(work_items) * flash_params.heads;
  if (items == 0) return;
  if (items > 0x7fffffffLL) throw std::runtime_error("wgmma-sm90: more work items than an int can count");
  Params p{};
  p.flash = flash_params;
  p.q_map = token_map<T, D>(flash_params.q, flash_params.heads, positions);
  p.k_map = token_map<T, D>(flash_params.k, flash_params.kv_heads, positions);
  p.v_map = token_map<T, D>(flash_params.v, flash_params.kv_heads, positions);
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&p.next_item), next_item_counter));
  CUDA_CHECK(cudaMemsetAsync(p.next_item, 0, sizeof(int)));
  const int blocks = static_cast<int>(std::min<long long>(items, config.resident_ctas));
  forward<T, D, features_key(F)><<<blocks, kThreads, config.dynamic_shared>>>(p, static_cast<int>(items));
  CUDA_CHECK_LAUNCH();
}

// Calls launch.template operator()<F>() with the features of rung `rung` (from 1).
template <typename Launch, std::size_t... i>
void with_rung_features(int rung, Launch&& launch, std::index_sequence<i...>) {
  ((rung == int(i) + 1 ? launch.template operator()<forward_rungs[i].features>() : void()), ...);
}

// The shipped kernel, or the rung of the ladder that ATTNLAB_WGMMA_RUNG names (only
// built for bf16 at D=128), announced on stderr at its first launch.
template <typename T, int D>
void launch_forward(const flash::Params& params, int work_items, std::int64_t positions) {
  const std::string instance = flash::instance_name<T, D>();
  const std::optional<int> rung = forward_rung_of(std::getenv(wgmma_rung_variable));
  if (!rung) return launch_forward_with<T, D, shipped_features(D)>(params, work_items, positions, "wgmma " + instance);
  if constexpr (std::is_same_v<T, __nv_bfloat16> && D == ladder_head_dim) {
    with_rung_features(*rung, [&]<ForwardFeatures F>() {
      static const bool announced = (std::fprintf(stderr, "%s\n", rung_announcement(*rung).c_str()), true);
      (void)announced;
      launch_forward_with<T, D, F>(params, work_items, positions,
                                   "wgmma " + instance + " rung " + std::to_string(*rung));
    }, std::make_index_sequence<forward_rung_count>());
  } else {
    throw rung_not_built(*rung, instance);
  }
}

}  // namespace attnlab::hopper
