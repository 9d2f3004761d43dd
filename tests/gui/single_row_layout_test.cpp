// The walkthrough's one-row copy of a layout row: every cell keeps its kind,
// every position its document, every query tile its visited key tiles.
#include <gtest/gtest.h>

#include "core/scenario/scenario.hpp"
#include "gui/views/single_row_layout.hpp"

namespace attnlab::gui {
namespace {

// Each layout of a scenario, with and without a sliding window narrower than its rows.
void expect_rows_kept(const Scenario& s) {
  const TileShape tile{16, 16};
  for (const Layout& layout : {s.padded_layout(), s.packed_layout(), s.varlen_layout()}) {
    const LayoutView v = layout.view();
    for (int r = 0; r < layout.num_rows(); ++r) {
      SCOPED_TRACE(std::string(layout_kind_name(layout.kind)) + " row " + std::to_string(r));
      const Layout one = single_row_layout(layout, r);
      const LayoutView o = one.view();
      ASSERT_EQ(o.num_rows, 1);
      ASSERT_EQ(row_extent(o, 0), row_extent(v, r));
      for (int q = 0; q < row_extent(v, r); ++q) {
        EXPECT_EQ(doc_at(o, 0, q), doc_at(v, r, q));
        EXPECT_EQ(one.token_source[q] >= 0, layout.token_source[v.row_start[r] + q] >= 0);
        for (int k = 0; k < row_extent(v, r); ++k)
          ASSERT_EQ(cell_kind(o, 0, q, k), cell_kind(v, r, q, k)) << q << "," << k;
      }
      for (int qt = 0; qt < query_tiles(v, tile, r); ++qt) {
        EXPECT_EQ(key_tiles_visited(o, tile, 0, qt), key_tiles_visited(v, tile, r, qt));
        EXPECT_EQ(count_tile(o, 0, qt * tile.rows, 0, tile), count_tile(v, r, qt * tile.rows, 0, tile));
      }
    }
  }
}

TEST(SingleRowLayout, EveryRowKeepsItsCellsAndTiles) {
  Scenario s;
  s.doc_lengths = {5, 40, 20, 3, 70};
  s.row_len = 48;
  expect_rows_kept(s);
}

TEST(SingleRowLayout, KeepsTheSlidingWindow) {
  Scenario s;
  s.doc_lengths = {5, 40, 20, 3, 70};
  s.row_len = 48;
  s.window = {12, -1};
  expect_rows_kept(s);
}

}  // namespace
}  // namespace attnlab::gui
