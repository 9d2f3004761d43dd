#pragma once
// The mask on a tile of scores, for both flash kernels, forward and backward: each
// query attends one range of keys (attended_keys, core/layout/layout.hpp); a cell outside it
// (causal_masked, window_masked, padding) is not part of the softmax.
#include "core/layout/layout.hpp"
#include "kernels/common/accumulator.cuh"

namespace attnlab::flash {

// Every element e of the thread's accumulator becomes keep(e, s[e]), or `outside` where
// `masked` and its key key_of(e) lies outside the keys its query attends, first_of(e)
// to last_of(e) (a KeyRange): -inf for scores on their way into the softmax, 0 for
// probabilities. The backward computes its probabilities in `keep`, in the same pass as
// the mask, and a query's last key is read only when its first does not already exclude
// the cell: both keep the Hopper backward as fast as it can be.
template <int n, typename KeyOf, typename FirstOf, typename LastOf, typename Keep>
__device__ __forceinline__ void apply_mask(float (&s)[n], bool masked, KeyOf key_of, FirstOf first_of, LastOf last_of,
                                           Keep keep, float outside) {
#pragma unroll
  for (int e = 0; e < n; ++e) {
    const float kept = keep(e, s[e]);
    const int key = key_of(e);
    s[e] = masked && (key < first_of(e) || key > last_of(e)) ? outside : kept;
  }
}

// The forward's tile, in a tile that needs the mask: the thread's rows are queries
// (their keys `keys[half]`), the columns keys from k0; a cell outside the mask gets -inf.
template <int n>
__device__ __forceinline__ void mask_scores(float (&s)[n], const KeyRange (&keys)[2], int k0, int lane) {
  apply_mask(
      s, true, [&](int e) { return k0 + accumulator_column(e, lane); },
      [&](int e) { return keys[accumulator_row_half(e)].first; },
      [&](int e) { return keys[accumulator_row_half(e)].last; }, [](int, float x) { return x; }, -INFINITY);
}

// The backward's transposed tile: the thread's rows are keys (first_key and first_key
// + 8), the columns queries, whose attended keys `first[c]`..`last[c]` are in shared
// memory; each element becomes keep(e, s[e]) or, outside the mask where `masked`, `outside`.
template <int n, typename Keep>
__device__ __forceinline__ void mask_transposed_scores(float (&s)[n], bool masked, const int* first, const int* last,
                                                       int first_key, int lane, Keep keep, float outside) {
  apply_mask(
      s, masked, [&](int e) { return first_key + 8 * accumulator_row_half(e); },
      [&](int e) { return first[accumulator_column(e, lane)]; },
      [&](int e) { return last[accumulator_column(e, lane)]; }, keep, outside);
}

}  // namespace attnlab::flash
