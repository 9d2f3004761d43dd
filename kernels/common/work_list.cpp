#include "kernels/common/work_list.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "core/layout/tile_name.hpp"

namespace attnlab {

namespace {

// Every tile of the layout's rows, rows with the most visited tiles first, a row's
// tiles together, heaviest first by `weight(view, tile, row, tile index)`.
template <typename Weight>
std::vector<WorkItem> ordered_tiles(const Layout& layout, TileShape tile, Weight weight) {
  const LayoutView v = layout.view();
  std::vector<WorkItem> items;
  std::vector<std::int64_t> row_tiles(v.num_rows, 0);
  for (int r = 0; r < v.num_rows; ++r)
    for (int qt = 0; qt < query_tiles(v, tile, r); ++qt) {
      items.push_back({r, qt});
      row_tiles[r] += key_tiles_visited(v, tile, r, qt).count();
    }
  std::stable_sort(items.begin(), items.end(), [&](const WorkItem& a, const WorkItem& b) {
    if (a.row != b.row)
      return row_tiles[a.row] != row_tiles[b.row] ? row_tiles[a.row] > row_tiles[b.row] : a.row < b.row;
    return weight(v, tile, a.row, a.query_tile) > weight(v, tile, b.row, b.query_tile);
  });
  return items;
}

}  // namespace

std::vector<WorkItem> flash_work_list(const Layout& layout, TileShape tile) {
  return ordered_tiles(layout, tile, [](const LayoutView& v, TileShape t, int row, int query_tile) {
    return key_tiles_visited(v, t, row, query_tile).count();
  });
}

std::vector<WorkItem> flash_backward_work_list(const Layout& layout, TileShape tile) {
  if (tile.rows != tile.cols)
    throw std::logic_error("flash_backward_work_list: a " + tile_name(tile) + " tile cannot be read as a key tile");
  return ordered_tiles(layout, tile, [](const LayoutView& v, TileShape t, int row, int key_tile) {
    return query_tiles_visiting(v, t, row, key_tile).count();
  });
}

}  // namespace attnlab
