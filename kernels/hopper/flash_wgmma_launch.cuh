#pragma once
// The Hopper kernel's launcher: its tensor maps and its persistent grid.
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled: the driver's encoder, fetched through the runtime

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/flash_launch.cuh"
#include "kernels/hopper/flash_wgmma.hpp"
#include "kernels/hopper/flash_wgmma_kernel.cuh"

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
template <typename T, int D>
void launch_forward(const flash::Params& flash_params, int work_items, std::int64_t positions) {
  const LaunchConfig& config =
      flash::launch_config_of<forward<T, D>>("wgmma " + flash::instance_name<T, D>(), kThreads, SharedLayout<D>::bytes);
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
  forward<T, D><<<blocks, kThreads, config.dynamic_shared>>>(p, static_cast<int>(items));
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::hopper
