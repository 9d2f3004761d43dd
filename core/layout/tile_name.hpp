#pragma once
// A flash tile as text, "BrxBc" (query rows x key columns, e.g. "64x64"): the results'
// tile column, `attnlab model --tile` and the views all write and read it this way.
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "core/layout/layout.hpp"

namespace attnlab {

inline std::string tile_name(TileShape t) { return std::to_string(t.rows) + "x" + std::to_string(t.cols); }

// The tile a text names; empty unless it is two positive integers joined by an 'x'.
inline std::optional<TileShape> parse_tile_name(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  TileShape t;
  const char* end = text.data() + text.size();
  const auto rows = std::from_chars(text.data(), text.data() + x, t.rows);
  const auto cols = std::from_chars(text.data() + x + 1, end, t.cols);
  if (rows.ptr != text.data() + x || rows.ec != std::errc() || cols.ptr != end || cols.ec != std::errc())
    return std::nullopt;
  if (t.rows < 1 || t.cols < 1) return std::nullopt;
  return t;
}

}  // namespace attnlab
