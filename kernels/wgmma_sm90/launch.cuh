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
#include "kernels/wgmma_sm90/backward_specialized_kernel.cuh"
#include "kernels/wgmma_sm90/forward_kernel.cuh"
#include "kernels/wgmma_sm90/launch.hpp"
#include "kernels/wgmma_sm90/rungs.hpp"

namespace attnlab::wgmma_sm90 {

// A tensor map over [positions][heads][D] elements of `element_bytes`, in boxes of
// `box_positions` positions x 128 bytes of one head, laid out in shared memory in the
// 128-byte swizzle (wgmma's descriptors describe it for 16-bit tiles). Boxes past the
// last position read zeros; their reductions are dropped.
inline CUtensorMap position_head_map(const void* base, CUtensorMapDataType type, int element_bytes, int D, int heads,
                                     std::int64_t positions, int box_positions) {
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
  const cuuint64_t strides[2] = {cuuint64_t(D) * element_bytes,
                                 cuuint64_t(heads) * D * element_bytes};  // bytes, dims 1 and 2
  const cuuint32_t box[3] = {cuuint32_t(128 / element_bytes), 1, cuuint32_t(box_positions)};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r =
      encode(&map, type, 3, const_cast<void*>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("wgmma-sm90: cuTensorMapEncodeTiled failed (" + std::to_string(r) + ")");
  return map;
}

// Q, K, V or dO: boxes of `box_positions` positions x 64 elements (the forward's tiles
// and the backward's key tiles: 128 positions; the backward's steps: kStepQueries).
template <typename T, int D>
CUtensorMap token_map(const void* base, int heads, std::int64_t positions, int box_positions = kRows) {
  return position_head_map(
      base, std::is_same_v<T, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, D,
      heads, positions, box_positions);
}

// One CTA per SM (its shared memory and 384 threads), each walking the work list, by
// the kernel built with features F; `what` names it in the launch line.
template <typename T, int D, ForwardFeatures F>
void launch_forward_with(const flash::Params& params, const flash::LaunchArgs& args, const std::string& what) {
  const auto scheduler = make_scheduler<F>(flash::work_of(args.work_items, params.heads, what), args.work_counter);
  const auto with_tensor_maps = [&] {
    Params p{};
    p.flash = params;
    p.q_map = token_map<T, D>(params.q, params.heads, args.query_positions);
    p.k_map = token_map<T, D>(params.k, params.kv_heads, args.positions);
    p.v_map = token_map<T, D>(params.v, params.kv_heads, args.positions);
    return p;
  };
  constexpr bool shipped = F == shipped_features(D);
  if (params.o_sums && !shipped)
    throw std::invalid_argument(what + ": folds into sums with the shipped features only; this rung stores its output");
  flash::with_counting(params, what, [&]<bool counting>(const std::string& name) {
    const auto launch = [&]<bool fold>(const std::string& instance) {
      flash::launch_scheduled<forward<T, D, features_key(F), SchedulerOf<F>, counting, fold>>(
          instance, kThreads, SharedLayout<D, F>::bytes, scheduler, args.stream, with_tensor_maps, args.sm_margin);
    };
    // Folding is an instance of its own, so the stored path's code is the same as without it.
    if constexpr (shipped && !counting) {
      if (params.o_sums) return launch.template operator()<true>(name + " folding into sums");
    }
    launch.template operator()<false>(name);
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

// Items of one (key tile, KV head), as the teaching backward's, by the backward built with
// features F (warp_specialized: backward_specialized, else backward): a CTA per item, or
// (persistent) a CTA per SM taking items from the backward's work counter; `what` names it
// in the launch line.
template <typename T, int D, BackwardFeatures F>
void launch_backward_with(const flash::BackwardParams& params, const flash::LaunchArgs& args, const std::string& what) {
  static_assert(F.dq_bulk_reduce || !F.warp_specialized, "the writer warp adds dQ by bulk reductions");
  static_assert(F.warp_specialized || !F.persistent, "the loader warp takes the items");
  static_assert(F.warp_specialized || !F.dq_first_store, "the writer warp stores each block's first dQ");
  const auto scheduler =
      make_backward_scheduler<F.persistent>(flash::work_of(args.work_items, params.kv_heads, what), args.work_counter);
  const auto with_tensor_maps = [&] {
    BackwardParams p{};
    p.flash = params;
    if constexpr (F.dq_bulk_reduce)
      p.dq_map = position_head_map(params.dq_accum, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, D, params.heads,
                                   args.query_positions, kStepQueries);
    if constexpr (F.warp_specialized) {
      p.q_map = token_map<T, D>(params.q, params.heads, args.query_positions, kStepQueries);
      p.do_map = token_map<T, D>(params.d_o, params.heads, args.query_positions, kStepQueries);
      p.k_map = token_map<T, D>(params.k, params.kv_heads, args.positions);
      p.v_map = token_map<T, D>(params.v, params.kv_heads, args.positions);
    }
    return p;
  };
  flash::with_counting(params, what, [&]<bool counting>(const std::string& name) {
    if constexpr (F.warp_specialized)
      flash::launch_scheduled<backward_specialized<T, D, F.persistent, F.dq_first_store, counting>>(
          name, kThreads, SpecializedBackwardLayout<T, D>::bytes, scheduler, args.stream, with_tensor_maps,
          args.sm_margin);
    else
      flash::launch_scheduled<backward<T, D, backward_features_key(F), counting>>(
          name, kBackwardThreads, BackwardLayout<D, F.dq_bulk_reduce>::bytes, scheduler, args.stream, with_tensor_maps);
  });
}

template <typename T, int D>
void launch_backward(const flash::BackwardParams& params, const flash::LaunchArgs& args) {
  launch_backward_with<T, D, shipped_backward_features()>(params, args,
                                                          "wgmma-sm90 backward " + flash::instance_name<T, D>());
}

// Rung `rung` of the backward's ladder, bf16 at head dim ladder_head_dim; the launch
// line says which rung ran, what it adds and its features.
template <int rung>
void launch_backward_rung(const flash::BackwardParams& params, const flash::LaunchArgs& args) {
  constexpr BackwardRung r = backward_rungs[rung - 1];
  launch_backward_with<__nv_bfloat16, ladder_head_dim, r.features>(
      params, args,
      "wgmma-sm90/bwd-rung" + std::to_string(rung) + " backward " +
          flash::instance_name<__nv_bfloat16, ladder_head_dim>() + " (adds: " + r.idea + "; " +
          describe_features(r.features) + ")");
}

}  // namespace attnlab::wgmma_sm90
