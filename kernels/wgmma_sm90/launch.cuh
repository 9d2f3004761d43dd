#pragma once
// The Hopper kernel's launchers: the forward's tensor maps and persistent grid, the
// rungs of the forward's ladder, and the backward's grid.
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled: the driver's encoder, fetched through the runtime

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/scheduler.cuh"
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

// One CTA per SM (its shared memory and 384 threads), each walking the work list, by
// the kernel built with features F; `what` names it in the launch line.
template <typename T, int D, ForwardFeatures F>
void launch_forward_with(const flash::Params& params, const flash::LaunchArgs& args, const std::string& what) {
  const auto scheduler = make_scheduler<F>(flash::work_of(args.work_items, params.heads, what), args.work_counter);
  const auto with_tensor_maps = [&] {
    Params p{};
    p.flash = params;
    p.q_map = token_map<T, D>(params.q, params.heads, args.positions);
    p.k_map = token_map<T, D>(params.k, params.kv_heads, args.positions);
    p.v_map = token_map<T, D>(params.v, params.kv_heads, args.positions);
    return p;
  };
  flash::with_counting(params, what, [&]<bool counting>(const std::string& name) {
    flash::launch_scheduled<forward<T, D, features_key(F), SchedulerOf<F>, counting>>(
        name, kThreads, SharedLayout<D, F>::bytes, scheduler, args.stream, with_tensor_maps);
  });
}

template <typename T, int D>
void launch_forward(const flash::Params& params, const flash::LaunchArgs& args) {
  launch_forward_with<T, D, shipped_features(D)>(params, args, "wgmma-sm90 " + flash::instance_name<T, D>());
}

// Rung `rung` of the ladder: bf16 at head dim ladder_head_dim only. The launch line says
// which rung ran, what it adds and its features.
template <int rung>
void launch_forward_rung(const flash::Params& params, const flash::LaunchArgs& args) {
  constexpr ForwardRung r = forward_rungs[rung - 1];
  launch_forward_with<__nv_bfloat16, ladder_head_dim, r.features>(
      params, args,
      "wgmma-sm90/rung" + std::to_string(rung) + " " + flash::instance_name<__nv_bfloat16, ladder_head_dim>() +
          " (adds: " + r.idea + "; " + describe_features(r.features) + ")");
}

// One CTA per (key tile, KV head), as the teaching backward's.
template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, const flash::LaunchArgs& args) {
  const std::string name = "wgmma-sm90 backward " + flash::instance_name<T, D>();
  const flash::OneCtaPerWork scheduler(flash::work_of(args.work_items, params.kv_heads, name));
  flash::with_counting(params, name, [&]<bool counting>(const std::string& what) {
    flash::launch_scheduled<backward<T, D, counting>>(what, kBackwardThreads, BackwardLayout<D>::bytes, scheduler,
                                                      args.stream, [&] { return params; });
  });
}

}  // namespace attnlab::wgmma_sm90
