#pragma once
// The mask on a tile of scores, for both flash kernels, forward and backward: each
// query attends one range of keys (attended_keys, core/layout/layout.hpp); a cell outside it
// (causal_masked, window_masked, padding) is not part of the softmax.
#include <cstdint>

#include "core/layout/layout.hpp"
#include "kernels/common/accumulator.cuh"

namespace attnlab::flash {

// Every element e of the thread's accumulator becomes keep(e, s[e]), or `outside` where
// `masked` and its key key_of(e) lies outside the keys its query attends, first_of(e)
// to last_of(e) (a KeyRange): -inf for scores on their way into the softmax, 0 for
// probabilities. The backward computes its probabilities in `keep`, in the same pass as
// the mask.
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

// The keys of a key tile that a query attends (attended_keys), as offsets in the tile
// clamped to it: key k0 + i is attended when first <= i < end. Two bytes, so that a
// thread reads the spans of two adjacent queries in one 4-byte load.
struct KeySpan {
  std::uint8_t first, end;
};
template <int cols>
__device__ __forceinline__ KeySpan key_span(KeyRange keys, int k0) {
  static_assert(cols <= 255, "a key span holds offsets in a tile of at most 255 keys");
  return {std::uint8_t(min(max(keys.first - k0, 0), cols)), std::uint8_t(min(max(keys.last + 1 - k0, 0), cols))};
}

// The backward's transposed tile: the thread's rows are keys (first_key and first_key
// + 8, offsets in the key tile), the columns queries, whose spans `spans[c]` are in shared
// memory; each element becomes keep(e, s[e]) or, outside the mask where `masked`,
// `outside`. One 4-byte load holds the spans of a thread's column pair. A tile without the
// mask takes a path of its own that reads no spans: one path for both leaves the Hopper
// backward's consumers short of registers.
template <int n, typename Keep>
__device__ __forceinline__ void mask_transposed_scores(float (&s)[n], bool masked, const KeySpan* spans, int first_key,
                                                       int lane, Keep keep, float outside) {
  if (!masked) {
#pragma unroll
    for (int e = 0; e < n; ++e) s[e] = keep(e, s[e]);
    return;
  }
  const auto byte = [&](int e, int b) {  // the pair's spans: first, end, first, end
    const std::uint32_t pair = column_pair<std::uint32_t>(spans, e, lane);
    return int((pair >> (16 * (e % 2) + 8 * b)) & 0xffu);
  };
  apply_mask(
      s, true, [&](int e) { return first_key + 8 * accumulator_row_half(e); }, [&](int e) { return byte(e, 0); },
      [&](int e) { return byte(e, 1) - 1; }, keep, outside);
}

}  // namespace attnlab::flash
