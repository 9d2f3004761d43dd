#pragma once
// The mask on a tile of scores, for both flash kernels, forward and backward: each
// query attends one range of keys (attended_keys, core/layout.hpp); a cell outside it
// (causal_masked, window_masked, padding) is not part of the softmax.
#include "core/layout.hpp"
#include "kernels/common/accumulator.cuh"

namespace attnlab::flash {

// One cell of an accumulator: its key and the keys its query attends.
struct MaskCell {
  int key;
  KeyRange attended;
};

// Every element e of the thread's accumulator becomes keep(e, s[e]), or `outside` where
// `masked` and cell_of(e) lies outside its query's keys: -inf for scores on their way
// into the softmax, 0 for probabilities. The backward computes its probabilities in
// `keep`, in the same pass as the mask, which keeps the Hopper backward's registers
// from spilling.
template <int n, typename CellOf, typename Keep>
__device__ __forceinline__ void apply_mask(float (&s)[n], bool masked, CellOf cell_of, Keep keep, float outside) {
#pragma unroll
  for (int e = 0; e < n; ++e) {
    const float kept = keep(e, s[e]);
    s[e] = masked && !cell_of(e).attended.contains(cell_of(e).key) ? outside : kept;
  }
}

// The forward's tile, in a tile that needs the mask: the thread's rows are queries
// (their keys `keys[half]`), the columns keys from k0; a cell outside the mask gets -inf.
template <int n>
__device__ __forceinline__ void mask_scores(float (&s)[n], const KeyRange (&keys)[2], int k0, int lane) {
  apply_mask(
      s, true, [&](int e) { return MaskCell{k0 + accumulator_column(e, lane), keys[accumulator_row_half(e)]}; },
      [](int, float x) { return x; }, -INFINITY);
}

// The backward's transposed tile: the thread's rows are keys (first_key and first_key
// + 8), the columns queries, whose attended keys `first[c]`..`last[c]` are in shared
// memory; each element becomes keep(e, s[e]) or, outside the mask where `masked`, `outside`.
template <int n, typename Keep>
__device__ __forceinline__ void mask_transposed_scores(float (&s)[n], bool masked, const int* first, const int* last,
                                                       int first_key, int lane, Keep keep, float outside) {
  apply_mask(
      s, masked,
      [&](int e) {
        const int c = accumulator_column(e, lane);
        return MaskCell{first_key + 8 * accumulator_row_half(e), KeyRange{first[c], last[c]}};
      },
      keep, outside);
}

}  // namespace attnlab::flash
