#include "kernels/work_list.hpp"

#include <algorithm>
#include <cstdint>

namespace attnlab {

std::vector<WorkItem> flash_work_list(const Layout& layout, TileShape tile) {
  const LayoutView v = layout.view();
  std::vector<WorkItem> items;
  std::vector<std::int64_t> row_tiles(v.num_rows, 0);
  for (int r = 0; r < v.num_rows; ++r)
    for (int qt = 0; qt < query_tiles(v, tile, r); ++qt) {
      items.push_back({r, qt});
      row_tiles[r] += key_tiles_visited(v, tile, r, qt).count();
    }
  std::stable_sort(items.begin(), items.end(), [&](const WorkItem& a, const WorkItem& b) {
    if (a.row != b.row) return row_tiles[a.row] != row_tiles[b.row] ? row_tiles[a.row] > row_tiles[b.row] : a.row < b.row;
    return key_tiles_visited(v, tile, a.row, a.query_tile).count() > key_tiles_visited(v, tile, b.row, b.query_tile).count();
  });
  return items;
}

}  // namespace attnlab
