#pragma once
// The tensor cores' accumulator layout, the same in both flash kernels: mma.sync's
// 16x8 fp32 tile, repeated along the columns (wgmma's 64 x N is four warps' 16 rows
// of it). A warp owns 16 rows; element e of a thread's flat accumulator array is
//   row    lane/4 + 8·((e/2)%2)   (the thread's row half (e/2)%2: its rows lane/4 and lane/4 + 8)
//   column 8·(e/4) + 2·(lane%4) + e%2
// so 8-column block j is elements 4j..4j+3.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace attnlab::flash {

// Which of the thread's two rows element e is in: 0 (row lane/4) or 1 (row lane/4 + 8).
__device__ __forceinline__ int accumulator_row_half(int e) { return (e / 2) % 2; }
__device__ __forceinline__ int accumulator_row(int e, int lane) { return lane / 4 + 8 * accumulator_row_half(e); }
__device__ __forceinline__ int accumulator_column(int e, int lane) { return (e / 4) * 8 + (lane % 4) * 2 + e % 2; }
// A thread's columns come in pairs (c, c + 1) from an even c: of an array with one `T` per
// column, the two of element e's pair in one load, as `Pair` (alignof(Pair) = 2·sizeof(T)).
template <typename Pair, typename T>
__device__ __forceinline__ Pair column_pair(const T* by_column, int e, int lane) {
  static_assert(sizeof(Pair) == 2 * sizeof(T));
  return reinterpret_cast<const Pair*>(by_column)[accumulator_column(e, lane) / 2];
}

// Two floats rounded to the 16-bit type T, packed as an mma operand register holds them.
template <typename T>
__device__ __forceinline__ unsigned pack_pair(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&v);
  }
}

// An accumulator in 16 bits as the A operand of the next product: the accumulator of
// columns 16kk..16kk+15 is, per warp, the A fragment of that 16-deep step.
template <typename T, int steps>
__device__ __forceinline__ void accumulator_as_a(unsigned (&a)[steps][4], const float (&acc)[steps * 8]) {
#pragma unroll
  for (int kk = 0; kk < steps; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) a[kk][r] = pack_pair<T>(acc[8 * kk + 2 * r], acc[8 * kk + 2 * r + 1]);
}

}  // namespace attnlab::flash
