#pragma once
// A forward's output folded into running sums instead of stored (Params::o_sums): a
// context-parallel rank runs its queries against one piece of K/V per launch, and each
// launch's (O', LSE') joins the sums' (O, LSE) of its query and head by the LSE rule,
//   LSE'' = log(e^LSE + e^LSE'),  O'' = e^(LSE - LSE'')·O + e^(LSE' - LSE'')·O',
// in fp32, in the epilogue, so no launch writes a partial that another pass reads back.
// A sum at LSE -inf holds no key yet: its O is never read, so the sums need no clearing
// but their LSE; a query the launch gives no key (LSE' = -inf) keeps its sums. A query
// is in at most one row of a launch (core/cost/cp_piece_layouts.hpp's rounds), so no
// two threads fold into one sum.
#include <cmath>
#include <cstdint>

#include "kernels/common/params.cuh"

namespace attnlab::flash {

// The thread's two output rows (accumulator.cuh's layout; `row` is the first one's place
// in the item's query tile, the second is 8 below) with finish_softmax's 1/sum and LSE,
// folded into p.o_sums and p.lse. Every lane of the warp calls it.
template <int D, typename Item>
__device__ __forceinline__ void fold_into_sums(const Params& p, const Item& item, int row, const float (&o)[D / 2],
                                               const float (&inv_sum)[2], const float (&lse)[2], int lane) {
  bool fold[2], read_sum[2];
  float sum_weight[2], new_weight[2], merged[2];
  std::int64_t pair[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int q = item.q0 + row + 8 * i;
    fold[i] = q < item.query_extent && lse[i] != -INFINITY;
    pair[i] = std::int64_t(item.query_begin + q) * p.heads + item.head;
    const float sum_lse = fold[i] ? p.lse[pair[i]] : -INFINITY;
    read_sum[i] = sum_lse != -INFINITY;
    // The weights come from the larger LSE, so neither exponential overflows.
    merged[i] = fmaxf(sum_lse, lse[i]) + log1pf(expf(-fabsf(sum_lse - lse[i])));
    sum_weight[i] = expf(sum_lse - merged[i]);
    new_weight[i] = expf(lse[i] - merged[i]) * inv_sum[i];
  }
  // Every load of the sums' O before any store: a store could alias a later load, so
  // loads interleaved with stores would wait one memory round trip each.
  float2 sums[D / 8][2] = {};
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i)
      if (read_sum[i]) sums[j][i] = *reinterpret_cast<const float2*>(p.o_sums + pair[i] * D + 8 * j + 2 * (lane % 4));
  __syncwarp();  // the four lanes of each row have read its LSE before one of them replaces it
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i)
      if (fold[i])
        *reinterpret_cast<float2*>(p.o_sums + pair[i] * D + 8 * j + 2 * (lane % 4)) =
            make_float2(fmaf(sum_weight[i], sums[j][i].x, o[4 * j + 2 * i] * new_weight[i]),
                        fmaf(sum_weight[i], sums[j][i].y, o[4 * j + 2 * i + 1] * new_weight[i]));
  if (lane % 4 == 0)
#pragma unroll
    for (int i = 0; i < 2; ++i)
      if (fold[i]) p.lse[pair[i]] = merged[i];
}

}  // namespace attnlab::flash
