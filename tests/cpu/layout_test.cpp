#include <gtest/gtest.h>

#include <random>

#include "core/layout/layouts.hpp"

namespace attnlab {
namespace {

// Sums cell_kind over every cell of every visited tile: the slow, obvious count.
CellCounts count_by_cells(const Layout& layout, TileShape t) {
  const LayoutView v = layout.view();
  CellCounts c;
  for (int r = 0; r < v.num_rows; ++r)
    for (int qt = 0; qt < query_tiles(v, t, r); ++qt)
      for (int kt = key_tiles_visited(v, t, r, qt).first; kt < key_tiles_visited(v, t, r, qt).end; ++kt)
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
    // No window, a left-only window, or (not causal) a window on both sides.
    const Window w = trial % 3 == 0 ? Window{}
                     : causal       ? Window{1 + int(rng() % 30), 0}
                                    : Window{int(rng() % 30), int(rng() % 30)};
    int longest = 0;
    for (int len : lengths) longest = std::max(longest, len);
    for (const Layout& l : {make_padded_layout(lengths, longest + int(rng() % 5), causal, w),
                            make_packed_layout(lengths, 8 + rng() % 60, PackingPolicy::concatenate, causal, w),
                            make_packed_layout(lengths, 8 + rng() % 60, PackingPolicy::best_fit, causal, w),
                            make_varlen_layout(lengths, causal, w)}) {
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
  EXPECT_EQ(v[CellKind::useful], 6);
  EXPECT_EQ(v[CellKind::causal_masked], 1);
  EXPECT_EQ(v[CellKind::padding], 5);
  EXPECT_EQ(v.computed(), 12);
  // padded to 4: the same 3 tiles; the pad token 3 is a real position now, the cells
  // touching it are (3,0) (3,1) in tile (1,0) and (2,3) (3,2) (3,3) in tile (1,1).
  const CellCounts p = count_layout(make_padded_layout({3}, 4, true), t);
  EXPECT_EQ(p.computed(), 12);
  EXPECT_EQ(p[CellKind::useful], 6);
  EXPECT_EQ(p[CellKind::causal_masked], 1);
  EXPECT_EQ(p[CellKind::padding], 5);
}

TEST(Layout, HandCountedCausalWindow) {
  // One document of 2048 tokens, window 512, causal: query q attends min(q, 512) + 1 keys,
  // so 512 * 513 / 2 for q < 512 and 513 each for the other 1536 queries.
  const Layout l = make_varlen_layout({2048}, true, {512, 0});
  const std::int64_t attended = 512 * 513 / 2 + 1536 * 513;
  ASSERT_EQ(attended, 919296);
  const CellCounts c = count_layout(l, {64, 64});
  EXPECT_EQ(c[CellKind::useful], attended);
  EXPECT_EQ(c[CellKind::bleed], 0);
  // 64x64 tiles: query tile qt visits key tiles from (64 qt - 512) / 64 = qt - 8 to qt:
  // 9 tiles once qt >= 8, qt + 1 before. Cells of visited tiles are useful or masked.
  const std::int64_t tiles = 8 * 9 / 2 + 24 * 9;
  EXPECT_EQ(c.computed(), tiles * 64 * 64);
  EXPECT_EQ(c[CellKind::causal_masked], 32 * (64 * 63 / 2));  // the diagonal tiles' upper triangles
  EXPECT_EQ(c[CellKind::window_masked], c.computed() - attended - c[CellKind::causal_masked]);
  EXPECT_EQ(c[CellKind::padding], 0);
}

TEST(Layout, HandCountedWindowOnPackedRowsCountsInsideTheRow) {
  // Documents of 3 and 5 in one row of 8, causal, window 2: each query sees itself and
  // at most 2 keys to its left, across the document boundary too (that is bleed).
  const Layout l = make_packed_layout({3, 5}, 8, PackingPolicy::concatenate, true, {2, 0});
  const CellCounts c = count_layout(l, {8, 8});
  EXPECT_EQ(c.attended(), 1 + 2 + 3 * 6);  // q = 0, 1, then 3 keys each
  EXPECT_EQ(c[CellKind::bleed], 2 + 1);    // q = 3 sees 1, 2; q = 4 sees 2
  EXPECT_EQ(c[CellKind::window_masked], 8 * 9 / 2 - c.attended());
  const LayoutView v = l.view();
  EXPECT_EQ(cell_kind(v, 0, 5, 2), CellKind::window_masked);
  EXPECT_EQ(cell_kind(v, 0, 4, 2), CellKind::bleed);
  EXPECT_EQ(cell_kind(v, 0, 4, 5), CellKind::causal_masked);
}

}  // namespace
}  // namespace attnlab
