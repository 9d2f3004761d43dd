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

// Every element e of the thread's accumulator whose cell_of(e) lies outside its query's
// keys takes `outside`: -inf for scores on their way into the softmax, 0 for probabilities.
template <int n, typename CellOf>
__device__ __forceinline__ void apply_mask(float (&s)[n], CellOf cell_of, float outside) {
#pragma unroll
  for (int e = 0; e < n; ++e) {
    const MaskCell cell = cell_of(e);
    if (!cell.attended.contains(cell.key)) s[e] = outside;
  }
}

// The forward's tile: the thread's rows are queries (their keys `keys[half]`), the
// columns keys from k0.
template <int n>
__device__ __forceinline__ void mask_scores(float (&s)[n], const KeyRange (&keys)[2], int k0, int lane) {
  apply_mask(s, [&](int e) { return MaskCell{k0 + accumulator_column(e, lane), keys[accumulator_row_half(e)]}; },
             -INFINITY);
}

// The backward's transposed tile: the thread's rows are keys (first_key and first_key
// + 8), the columns queries, whose attended keys `first[c]`..`last[c]` are in shared memory.
template <int n>
__device__ __forceinline__ void mask_transposed_scores(float (&s)[n], const int* first, const int* last, int first_key,
                                              int lane, float outside) {
  apply_mask(
      s,
      [&](int e) {
        const int c = accumulator_column(e, lane);
        return MaskCell{first_key + 8 * accumulator_row_half(e), KeyRange{first[c], last[c]}};
      },
      outside);
}

}  // namespace attnlab::flash
