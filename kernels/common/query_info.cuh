#pragma once
// What both flash backwards know of each query of a step: its LSE and Δ, and the keys
// of the key tile it attends, loaded beside the step's Q and dO tiles; and how they add dQ.
#include <cstdint>

#include "core/layout/layout.hpp"
#include "kernels/common/accumulator.cuh"
#include "kernels/common/copy_async.cuh"
#include "kernels/common/mask.cuh"
#include "kernels/common/params.cuh"
#include "kernels/common/softmax.cuh"

namespace attnlab::flash {

// Per query of a step of `queries` queries: its LSE (natural log) and Δ, and the span of
// the key tile's keys it attends (mask.cuh). A thread's columns come in adjacent pairs,
// so it reads LSE and Δ eight bytes at a time (the alignment keeps every copy so aligned).
template <int queries>
struct alignas(16) QueryInfo {
  float lse[queries];
  float delta[queries];
  KeySpan keys[queries];
};

// Where query i from q0 of one head keeps its LSE and Δ (their index in p.lse, p.delta;
// D times it, its dQ sums in p.dq_accum).
__device__ __forceinline__ std::int64_t query_stats_at(const BackwardParams& p, int row_begin, int head, int q0,
                                                       int i) {
  return (std::int64_t(row_begin + q0) + i) * p.heads + head;
}

// Starts loading, for the `queries` queries from q0 of one head, the LSE and Δ of
// each (cp.async; past the row's valid queries, zeros) and the keys each attends of
// the `cols` keys from k0 (from the layout: plain stores). The first `queries` threads
// take a query's LSE and attended keys, the next `queries` its Δ; `thread` is the
// caller's number among 2 · queries or more.
template <int cols, int queries>
__device__ __forceinline__ void start_query_info(const BackwardParams& p, int row_begin, RowBounds bounds, int head,
                                                 int q0, int k0, QueryInfo<queries>& info, int thread) {
  const int i = thread % queries;
  const bool present = q0 + i < bounds.queries;
  const std::int64_t at = query_stats_at(p, row_begin, head, q0, i);
  if (thread < queries) {
    copy_async_4(&info.lse[i], present ? p.lse + at : p.lse, present ? 4 : 0);
    info.keys[i] = key_span<cols>(attended_keys(p.layout, bounds, q0 + i), k0);  // empty past the row's valid tokens
  } else if (thread < 2 * queries) {
    copy_async_4(&info.delta[i], present ? p.delta + at : p.delta, present ? 4 : 0);
  }
}

// The same with plain loads and stores by one warp (a producer's, a step ahead of the
// threads that read it), lane l taking queries l, l + 32, ...
template <int cols, int queries>
__device__ __forceinline__ void load_query_info(const BackwardParams& p, int row_begin, RowBounds bounds, int head,
                                                int q0, int k0, QueryInfo<queries>& info, int lane) {
#pragma unroll
  for (int i = lane; i < queries; i += 32) {
    const bool present = q0 + i < bounds.queries;
    const std::int64_t at = query_stats_at(p, row_begin, head, q0, i);
    info.lse[i] = present ? p.lse[at] : 0.f;
    info.delta[i] = present ? p.delta[at] : 0.f;
    info.keys[i] = key_span<cols>(attended_keys(p.layout, bounds, q0 + i), k0);
  }
}

// Pᵀ = exp(S·scale − LSE) in place for a transposed tile (the thread's rows are keys
// first_key and first_key + 8, the columns the step's queries); in a tile that needs the
// mask (`masked`), a cell outside its query's attended keys gets 0 (a padding query has
// none: its LSE of -inf never reaches the result).
template <int n, int queries>
__device__ __forceinline__ void probabilities_from_lse(float (&s)[n], const QueryInfo<queries>& info, int first_key,
                                                       bool masked, float scale_log2, int lane) {
  mask_transposed_scores(
      s, masked, info.keys, first_key, lane,
      [&](int e, float score) {
        const float2 lse = column_pair<float2>(info.lse, e, lane);
        return probability(score, e % 2 ? lse.y : lse.x, scale_log2);
      },
      0.f);
}

// S as the forward masks it (-inf outside the mask), for counting the scores left finite.
template <int n, int queries>
__device__ __forceinline__ void mask_as_forward(float (&s)[n], const QueryInfo<queries>& info, int first_key,
                                                bool masked, int lane) {
  mask_transposed_scores(
      s, masked, info.keys, first_key, lane, [](int, float x) { return x; }, -INFINITY);
}

// Adds two adjacent floats (8-byte aligned) to global memory. The dQ sums are bound
// by the L2's atomic throughput: on sm_90 one 8-byte reduction lets the four lanes
// of a row fill one 32-byte sector with one operation, where two 4-byte ones leave
// each of two operations half a sector. Measured on the H100 (uniform-64x512 and
// uniform-16x2048, bf16, d128, the teaching backward): 1994 -> 1532 µs and 5512 -> 3891 µs.
__device__ __forceinline__ void atomic_add_pair(float* at, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(at), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(at, a);
  atomicAdd(at + 1, b);
#endif
}

}  // namespace attnlab::flash
