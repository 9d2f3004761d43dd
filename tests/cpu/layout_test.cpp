#include <gtest/gtest.h>

#include <random>

#include "core/layouts.hpp"

namespace attnlab {
namespace {

// Sums cell_kind over every cell of every visited tile: the slow, obvious count.
CellCounts count_by_cells(const Layout& layout, TileShape t) {
  const LayoutView v = layout.view();
  CellCounts c;
  for (int r = 0; r < v.num_rows; ++r)
    for (int qt = 0; qt < query_tiles(v, t, r); ++qt)
      for (int kt = 0; kt < key_tiles_visited(v, t, r, qt); ++kt)
        for (int q = qt * t.rows; q < (qt + 1) * t.rows; ++q)
          for (int k = kt * t.cols; k < (kt + 1) * t.cols; ++k) c.add(cell_kind(v, r, q, k));
  return c;
}

TEST(Layout, TileCountsEqualCellByCellCountsOnRandomLayouts) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<int> lengths(1 + rng() % 6);
    for (int& len : lengths) len = 1 + rng() % 70;
    const bool causal = trial % 2 == 0;
    const TileShape t{1 + int(rng() % 20), 1 + int(rng() % 20)};
    int longest = 0;
    for (int len : lengths) longest = std::max(longest, len);
    for (const Layout& l : {make_padded_layout(lengths, longest + int(rng() % 5), causal),
                            make_packed_layout(lengths, 8 + rng() % 60, PackingPolicy::concatenate, causal),
                            make_packed_layout(lengths, 8 + rng() % 60, PackingPolicy::best_fit, causal),
                            make_varlen_layout(lengths, causal)}) {
      EXPECT_EQ(count_layout(l, t), count_by_cells(l, t)) << layout_kind_name(l.kind) << " trial " << trial;
    }
  }
}

TEST(Layout, PackedConcatenateCutsDocumentsAcrossRows) {
  // Documents of 3, 5 and 2 tokens in rows of 4: [0 0 0 1] [1 1 1 1] [2 2 - -]
  const Layout l = make_packed_layout({3, 5, 2}, 4, PackingPolicy::concatenate, true);
  ASSERT_EQ(l.num_rows(), 3);
  EXPECT_EQ(l.token_doc, (std::vector<int>{0, 0, 0, 1, 1, 1, 1, 1, 2, 2, -1, -1}));
  EXPECT_EQ(l.row_valid, (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(l.token_source[4], 4);
  EXPECT_EQ(l.token_source[10], -1);
  const LayoutView v = l.view();
  EXPECT_EQ(cell_kind(v, 0, 3, 1), CellKind::bleed);
  EXPECT_EQ(cell_kind(v, 0, 1, 3), CellKind::causal_masked);
  EXPECT_EQ(cell_kind(v, 0, 2, 0), CellKind::useful);
  EXPECT_EQ(cell_kind(v, 2, 3, 0), CellKind::padding);
}

TEST(Layout, BestFitStartsEveryRowAtADocumentAndCrops) {
  // Row length 8: 9 is cropped to 8; 5 and 3 share a row; 6 gets its own.
  const Layout l = make_packed_layout({9, 5, 6, 3}, 8, PackingPolicy::best_fit, true);
  ASSERT_EQ(l.num_rows(), 3);
  EXPECT_EQ(l.row_valid, (std::vector<int>{8, 8, 6}));
  EXPECT_EQ(l.piece_doc, (std::vector<int>{0, 1, 3, 2}));
  EXPECT_EQ(l.token_source[8 + 5], 9 + 5 + 6);  // the 3-token document follows the 5-token one
}

TEST(Layout, HandCountedCausalVarlenAndPadded) {
  const TileShape t{2, 2};
  // varlen, one document of 3 tokens, tiles 2x2: tiles (0,0), (1,0), (1,1); 12 cells,
  // 6 useful, 1 masked (0,1), overhang: row 3 of tiles (1,*) and column 3 of (1,1) -> 5 padding.
  const CellCounts v = count_layout(make_varlen_layout({3}, true), t);
  EXPECT_EQ(v.useful, 6);
  EXPECT_EQ(v.causal_masked, 1);
  EXPECT_EQ(v.padding, 5);
  EXPECT_EQ(v.computed(), 12);
  // padded to 4: the same 3 tiles; the pad token 3 is a real position now, the cells
  // touching it are (3,0) (3,1) in tile (1,0) and (2,3) (3,2) (3,3) in tile (1,1).
  const CellCounts p = count_layout(make_padded_layout({3}, 4, true), t);
  EXPECT_EQ(p.computed(), 12);
  EXPECT_EQ(p.useful, 6);
  EXPECT_EQ(p.causal_masked, 1);
  EXPECT_EQ(p.padding, 5);
}

}  // namespace
}  // namespace attnlab
