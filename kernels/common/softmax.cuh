#pragma once
// Online softmax and the log-sum-exp, one arithmetic for both flash kernels: scores
// arrive raw (unscaled) in the accumulator layout (accumulator.cuh); c = scale·log2 e
// turns them into base-2 exponents, so every exponential is one exp2.
#include <cmath>

#include "kernels/common/accumulator.cuh"

namespace attnlab::flash {

// 2^x on the special-function unit; exp2(-inf) = 0, which the masking relies on.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Max and sum over the four lanes that hold one accumulator row.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Online softmax over one more key tile for the thread's two rows: the new running
// max, the factor that what was summed and accumulated so far is rescaled by (the
// caller rescales O with rescale_output, when no product is still adding into it),
// and s becomes P = exp2(S·c - max·c).
template <int n>
__device__ __forceinline__ void online_softmax(float (&s)[n], float (&row_max)[2], float (&row_sum)[2],
                                               float (&rescale)[2], float scale_log2) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < n / 4; ++j) tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * i], s[4 * j + 2 * i + 1]));
    const float new_max = fmaxf(row_max[i], quad_max(tile_max));
    // A row with nothing visible yet keeps max -inf; subtract 0 then, so exp2(-inf) = 0, not NaN.
    const float max_scaled = new_max == -INFINITY ? 0.f : new_max * scale_log2;
    rescale[i] = fast_exp2(row_max[i] * scale_log2 - max_scaled);
    row_max[i] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < n / 4; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        float& x = s[4 * j + 2 * i + c];
        x = fast_exp2(fmaf(x, scale_log2, -max_scaled));
        sum += x;
      }
    row_sum[i] = row_sum[i] * rescale[i] + sum;
  }
}

// O of the thread's two rows times their factors.
template <int n>
__device__ __forceinline__ void rescale_output(float (&o)[n], const float (&rescale)[2]) {
#pragma unroll
  for (int e = 0; e < n; ++e) o[e] *= rescale[accumulator_row_half(e)];
}

// Once every key tile is in: the factor 1/sum that O is scaled by, and LSE = ln(sum) +
// max·scale, of the thread's two rows; a row with no attended key (a padding query)
// gets factor 0 (so O = 0) and LSE = -inf.
__device__ __forceinline__ void finish_softmax(const float (&row_max)[2], const float (&row_sum)[2], float scale_log2,
                                               float (&inv_sum)[2], float (&lse)[2]) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float total = quad_sum(row_sum[i]);
    const bool attended = total > 0.f;
    inv_sum[i] = attended ? __frcp_rn(total) : 0.f;
    lse[i] = attended ? fmaf(row_max[i], scale_log2, log2f(total)) * float(M_LN2) : -INFINITY;
  }
}

// The backward's P of one score, recomputed from the forward's LSE (natural log):
// exp2(S·c - LSE·log2 e).
__device__ __forceinline__ float probability(float score, float lse, float scale_log2) {
  constexpr float log2e = 1.4426950408889634f;
  return fast_exp2(fmaf(score, scale_log2, -lse * log2e));
}

// dSᵀ = Pᵀ∘(dPᵀ − Δ) in place of dPᵀ, for a transposed tile whose columns are queries
// (Δ of column c at delta[c]; P in fp32, as computed).
template <int n>
__device__ __forceinline__ void score_gradients(float (&dp)[n], const float (&p)[n], const float* delta, int lane) {
#pragma unroll
  for (int e = 0; e < n; ++e) dp[e] = p[e] * (dp[e] - delta[accumulator_column(e, lane)]);
}

}  // namespace attnlab::flash
