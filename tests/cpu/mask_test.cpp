// The per-tile and per-query shortcuts of core/layout/layout.hpp (what the kernels use
// instead of asking cell_kind for every cell) agree with cell_kind, cell by cell,
// on random layouts of every kind, causal or not, with and without windows, and on
// layouts with a query side (a context-parallel rank's pieces).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/cost/cp_piece_layouts.hpp"
#include "core/layout/layouts.hpp"

namespace attnlab {
namespace {

// A window that fits the mask: (left, 0) when causal, (left, right) otherwise, or none.
Window random_window(std::mt19937& rng, bool causal) {
  switch (rng() % 3) {
    case 0: return {};
    case 1: return {1 + int(rng() % 90), 0};
    default: return causal ? Window{1 + int(rng() % 20), 0} : Window{int(rng() % 40), int(rng() % 40)};
  }
}

// Each document cut at random into 1 to 4 pieces.
std::vector<CpPiece> random_pieces(std::mt19937& rng, const std::vector<int>& lengths) {
  std::vector<CpPiece> pieces;
  for (int doc = 0; doc < int(lengths.size()); ++doc) {
    const int count = 1 + int(rng() % 4);
    for (int i = 0; i < count; ++i) pieces.push_back(document_piece(doc, lengths[doc], i, count));
  }
  return pieces;
}

std::vector<Layout> random_layouts(std::mt19937& rng, bool causal) {
  std::vector<int> lengths(1 + rng() % 6);
  for (int& len : lengths) len = 1 + rng() % 200;
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  const Window w = random_window(rng, causal);
  std::vector<Layout> layouts = {make_varlen_layout(lengths, causal, w),
                                 make_padded_layout(lengths, longest + int(rng() % 70), causal, w),
                                 make_packed_layout(lengths, 20 + rng() % 200, PackingPolicy::concatenate, causal, w),
                                 make_packed_layout(lengths, 20 + rng() % 200, PackingPolicy::best_fit, causal, w)};
  // Query pieces of one cut against key pieces of another: rows whose queries start before,
  // inside and past their keys.
  CpPieceLayouts pieces = cp_piece_layouts(layouts[0], random_pieces(rng, lengths), random_pieces(rng, lengths));
  for (Layout& round : pieces.rounds) layouts.push_back(std::move(round));
  return layouts;
}

std::string describe(const Layout& l) {
  return std::string(layout_kind_name(l.kind)) + (l.has_query_side() ? " pieces" : "") +
         (l.causal ? " causal" : " full") + " window (" + std::to_string(l.window.left) + ", " +
         std::to_string(l.window.right) + ")";
}

const TileShape tiles[] = {{64, 64}, {128, 64}, {16, 8}, {5, 7}};

TEST(Mask, TileNeedsMaskIffSomeCellOfAVisitedTileIsNotAttended) {
  std::mt19937 rng(5);
  std::int64_t masked = 0, unmasked = 0;
  for (int trial = 0; trial < 40; ++trial)
    for (const Layout& layout : random_layouts(rng, trial % 2 == 0))
      for (TileShape t : tiles) {
        const LayoutView v = layout.view();
        for (int r = 0; r < v.num_rows; ++r)
          for (int qt = 0; qt < query_tiles(v, t, r); ++qt) {
            const TileRange keys = key_tiles_visited(v, t, r, qt);
            for (int kt = keys.first; kt < keys.end; ++kt) {
              const int q0 = qt * t.rows, k0 = kt * t.cols;
              bool some_cell_masked = false;
              for (int q = q0; q < q0 + t.rows; ++q)
                for (int k = k0; k < k0 + t.cols; ++k) some_cell_masked |= !attended(cell_kind(v, r, q, k));
              ASSERT_EQ(tile_needs_mask(v, r, q0, k0, t), some_cell_masked)
                  << describe(layout) << " row " << r << " tile (" << qt << ", " << kt << ")";
              (some_cell_masked ? masked : unmasked) += 1;
            }
          }
      }
  EXPECT_GT(masked, 0);
  EXPECT_GT(unmasked, 0);  // both paths were exercised
}

TEST(Mask, AttendedKeysAreExactlyTheAttendedCells) {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 40; ++trial)
    for (const Layout& layout : random_layouts(rng, trial % 2 == 0)) {
      const LayoutView v = layout.view();
      for (int r = 0; r < v.num_rows; ++r) {
        // Tile overhang past the row's end too.
        for (int q = 0; q < query_extent(v, r) + 64; ++q) {
          const KeyRange keys = attended_keys(v, r, q);
          for (int k = 0; k < row_extent(v, r) + 64; ++k)
            ASSERT_EQ(k >= keys.first && k <= keys.last, attended(cell_kind(v, r, q, k)))
                << describe(layout) << " row " << r << " cell (" << q << ", " << k << ")";
        }
      }
    }
}

// Every attended cell lies in a visited tile, and every visited tile holds an attended
// cell of some query of its query tile's rows (padding queries aside), so no tile is
// skipped that matters and none is visited for nothing.
TEST(Mask, VisitedTilesAreExactlyTheTilesWithAttendedCells) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 30; ++trial)
    for (const Layout& layout : random_layouts(rng, trial % 2 == 0))
      for (TileShape t : tiles) {
        const LayoutView v = layout.view();
        for (int r = 0; r < v.num_rows; ++r) {
          const int extent = row_extent(v, r);
          for (int qt = 0; qt < query_tiles(v, t, r); ++qt)
            for (int kt = 0; kt < tiles_along(extent, t.cols); ++kt) {
              // Attended under the mask's position rules, as if every position held a token.
              bool holds_attended = false;
              for (int q = qt * t.rows; q < (qt + 1) * t.rows && !holds_attended; ++q)
                for (int k = kt * t.cols; k < std::min((kt + 1) * t.cols, extent); ++k) {
                  const int at = row_bounds(v, r).shift + q;
                  const bool causal_ok = !v.causal || k <= at;
                  const bool left_ok = v.window.left < 0 || k >= at - v.window.left;
                  const bool right_ok = v.window.right < 0 || k <= at + v.window.right;
                  if (causal_ok && left_ok && right_ok) holds_attended = true;
                }
              ASSERT_EQ(tile_visited(v, t, r, qt, kt), holds_attended)
                  << describe(layout) << " row " << r << " tile (" << qt << ", " << kt << ")";
            }
        }
      }
}

TEST(Mask, QueryTilesVisitingIsTheInverseOfKeyTilesVisited) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 40; ++trial)
    for (const Layout& layout : random_layouts(rng, trial % 2 == 0))
      for (TileShape t : tiles) {
        const LayoutView v = layout.view();
        for (int r = 0; r < v.num_rows; ++r)
          for (int kt = 0; kt < tiles_along(row_extent(v, r), t.cols); ++kt) {
            const TileRange queries = query_tiles_visiting(v, t, r, kt);
            for (int qt = 0; qt < query_tiles(v, t, r); ++qt)
              ASSERT_EQ(qt >= queries.first && qt < queries.end, tile_visited(v, t, r, qt, kt))
                  << describe(layout) << " row " << r << " tile (" << qt << ", " << kt << ")";
          }
      }
}

}  // namespace
}  // namespace attnlab
