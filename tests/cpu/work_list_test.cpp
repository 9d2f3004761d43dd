// Checks of the flash kernels' schedules: each work list covers every tile once,
// heaviest rows first with each row's tiles together. (The mask shortcuts: mask_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include "kernels/common/work_list.hpp"
#include "kernels/kernel_choice.hpp"

namespace attnlab {
namespace {

constexpr TileShape work_tile = kernel_tile(FlashKernel::mma_sm80);

std::vector<Layout> random_layouts(std::mt19937& rng, bool causal) {
  std::vector<int> lengths(1 + rng() % 8);
  for (int& len : lengths) len = 1 + rng() % 300;
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  return {make_varlen_layout(lengths, causal), make_padded_layout(lengths, longest + int(rng() % 70), causal),
          make_packed_layout(lengths, 20 + rng() % 300, PackingPolicy::concatenate, causal),
          make_packed_layout(lengths, 20 + rng() % 300, PackingPolicy::best_fit, causal)};
}

// Every tile once, rows with the most visited tiles first, a row's tiles together,
// within a row heaviest first by `weight` (the forward's: key tiles a query tile
// visits; the backward's: query tiles visiting a key tile).
template <typename Weight>
void expect_schedule(const std::vector<WorkItem>& items, const Layout& layout, Weight weight) {
  const LayoutView v = layout.view();
  std::set<std::pair<int, int>> seen;
  for (const WorkItem& w : items) EXPECT_TRUE(seen.insert({w.row, w.query_tile}).second);
  std::size_t expected = 0;
  std::vector<std::int64_t> row_tiles(v.num_rows, 0);
  for (int r = 0; r < v.num_rows; ++r) {
    expected += query_tiles(v, work_tile, r);
    for (int qt = 0; qt < query_tiles(v, work_tile, r); ++qt)
      row_tiles[r] += key_tiles_visited(v, work_tile, r, qt).count();
  }
  EXPECT_EQ(items.size(), expected);
  std::set<int> rows_done;
  for (std::size_t i = 1; i < items.size(); ++i) {
    const WorkItem &a = items[i - 1], &b = items[i];
    if (a.row == b.row) {
      EXPECT_GE(weight(v, a), weight(v, b));
    } else {
      EXPECT_GE(row_tiles[a.row], row_tiles[b.row]);
      EXPECT_TRUE(rows_done.insert(a.row).second) << "row " << a.row << " split in the list";
    }
  }
}

TEST(WorkList, CoversEveryQueryTileOnceHeaviestRowsFirstRowsTogether) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 20; ++trial)
    for (const Layout& layout : random_layouts(rng, trial % 2 == 0))
      expect_schedule(flash_work_list(layout, work_tile), layout, [](const LayoutView& v, const WorkItem& w) {
        return key_tiles_visited(v, work_tile, w.row, w.query_tile).count();
      });
}

TEST(WorkList, TheBackwardsTakeARowsMostVisitedKeyTilesFirst) {
  std::mt19937 rng(10);
  for (int trial = 0; trial < 20; ++trial)
    for (const Layout& layout : random_layouts(rng, trial % 2 == 0))
      expect_schedule(flash_backward_work_list(layout, work_tile), layout, [](const LayoutView& v, const WorkItem& w) {
        return query_tiles_visiting(v, work_tile, w.row, w.query_tile).count();
      });
  // Causal: every query tile of a document visits its first key tile, so the long
  // document's first key tile leads; in the forward's list it comes last of its row.
  std::vector<int> lengths(32, 10);
  lengths.push_back(2048);
  const Layout layout = make_varlen_layout(lengths, true);
  EXPECT_EQ(flash_backward_work_list(layout, work_tile).front(), (WorkItem{32, 0}));
  EXPECT_EQ(flash_work_list(layout, work_tile)[31], (WorkItem{32, 0}));
  EXPECT_THROW(flash_backward_work_list(layout, TileShape{128, 64}), std::logic_error);
}

TEST(WorkList, SchedulesVarlenFromDocumentsNotFromTheLongest) {
  // One long and many short documents: a grid sized by the longest would have
  // 33 x 32 blocks; the work list has 32 + 32 items.
  std::vector<int> lengths(32, 10);
  lengths.push_back(2048);
  const Layout layout = make_varlen_layout(lengths, true);
  const std::vector<WorkItem> items = flash_work_list(layout, work_tile);
  EXPECT_EQ(items.size(), 64u);
  EXPECT_EQ(items.front(), (WorkItem{32, 31}));  // the long document's last tile visits the most keys
}

}  // namespace
}  // namespace attnlab
