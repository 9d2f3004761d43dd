#pragma once
// The pieces of the HBM-bytes model (core/cost/README.md, "HBM bytes") shared by the
// cost model, which sums them over a layout, and the flash walkthrough, which
// adds them up one key tile at a time.
#include <algorithm>
#include <cstdint>

#include "core/layout/layout.hpp"

namespace attnlab {

inline constexpr std::int64_t score_bytes = 4;  // naive's S is fp32
inline constexpr std::int64_t lse_bytes = 4;    // the log-sum-exp is fp32

// Key (and value) tokens a query tile reads visiting the key tiles `keys` of a row
// `extent` long: a tile overhanging the row's end reads only the tokens that are there.
inline std::int64_t keys_loaded(TileRange keys, TileShape tile, std::int64_t extent) {
  if (keys.count() == 0) return 0;
  return std::min<std::int64_t>(std::int64_t(keys.end) * tile.cols, extent) - std::int64_t(keys.first) * tile.cols;
}

}  // namespace attnlab
