#include "kernels/work_list.hpp"

#include <algorithm>
#include <cstdint>

namespace attnlab {
namespace {

// Items (row, index < items_in_row(row)), each weighing weight(row, index): rows
// with the most weight first, and within a row the heaviest items first.
template <typename Count, typename Weight>
std::vector<WorkItem> heaviest_first(const LayoutView& v, Count items_in_row, Weight weight) {
  std::vector<WorkItem> items;
  std::vector<std::int64_t> row_weight(v.num_rows, 0);
  for (int r = 0; r < v.num_rows; ++r)
    for (int i = 0; i < items_in_row(r); ++i) {
      items.push_back({r, i});
      row_weight[r] += weight(r, i);
    }
  std::stable_sort(items.begin(), items.end(), [&](const WorkItem& a, const WorkItem& b) {
    if (a.row != b.row) return row_weight[a.row] != row_weight[b.row] ? row_weight[a.row] > row_weight[b.row] : a.row < b.row;
    return weight(a.row, a.query_tile) > weight(b.row, b.query_tile);
  });
  return items;
}

}  // namespace

std::vector<WorkItem> flash_work_list(const Layout& layout, TileShape tile) {
  const LayoutView v = layout.view();
  return heaviest_first(
      v, [&](int r) { return query_tiles(v, tile, r); },
      [&](int r, int qt) { return key_tiles_visited(v, tile, r, qt).count(); });
}

std::vector<WorkItem> backward_work_list(const Layout& layout, TileShape tile) {
  const LayoutView v = layout.view();
  const auto key_tiles = [&](int r) { return tiles_along(row_extent(v, r), tile.cols); };
  return heaviest_first(
      v, [&](int r) { return (key_tiles(r) + backward_key_tiles - 1) / backward_key_tiles; },
      [&](int r, int run) {
        int visits = 0;
        for (int kt = backward_key_tiles * run; kt < backward_key_tiles * (run + 1) && kt < key_tiles(r); ++kt)
          visits += query_tiles_visiting(v, tile, r, kt).count();
        return visits;
      });
}

}  // namespace attnlab
