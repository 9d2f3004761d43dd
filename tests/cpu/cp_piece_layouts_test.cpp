// core/cost/cp_piece_layouts.hpp: the rounds a rank's query pieces run against pieces of
// K/V hold each attended (query, key) cell of the whole varlen layout exactly once, no two
// rows of a round share a query or a key piece, and the tiles' counts say the same.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/cost/cp_piece_layouts.hpp"
#include "core/layout/layouts.hpp"

namespace attnlab {
namespace {

struct Case {
  Layout varlen;
  std::vector<CpPiece> queries, keys;
};

// Random documents under a random mask; the queries of one rank of a random plan against the
// K/V of all ranks in a shuffled order, or against a random cut of every document.
Case random_case(std::mt19937& rng) {
  std::vector<int> lengths(1 + rng() % 5);
  for (int& len : lengths) len = 1 + int(rng() % 300);
  const bool causal = rng() % 4 != 0;
  Window window;
  if (rng() % 2) window = causal ? Window{int(rng() % 120), 0} : Window{int(rng() % 60), int(rng() % 60)};
  Case c{make_varlen_layout(lengths, causal, window), {}, {}};
  const int ranks = 1 + int(rng() % 4);
  const CpPlan plan = plan_context_parallel(c.varlen, ranks, all_cp_strategies[rng() % 3]);
  c.queries = plan.pieces[rng() % ranks];
  if (rng() % 2) {
    for (const auto& held : plan.pieces) c.keys.insert(c.keys.end(), held.begin(), held.end());
    std::shuffle(c.keys.begin(), c.keys.end(), rng);
  } else {
    for (int doc = 0; doc < int(lengths.size()); ++doc) {
      const int count = 1 + int(rng() % 5);
      for (int i = 0; i < count; ++i) c.keys.push_back(document_piece(doc, lengths[doc], i, count));
    }
  }
  return c;
}

TEST(CpPieceLayouts, EveryAttendedCellIsInExactlyOneRowOfOneRound) {
  std::mt19937 rng(41);
  std::int64_t cells = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Case c = random_case(rng);
    const CpPieceLayouts pieces = cp_piece_layouts(c.varlen, c.queries, c.keys);
    ASSERT_EQ(pieces.query_tokens, tokens_of(c.queries));
    ASSERT_EQ(pieces.key_tokens, tokens_of(c.keys));
    // times[query slot][key slot]: how often a round's row attends the cell.
    std::vector<std::vector<int>> times(pieces.query_tokens, std::vector<int>(pieces.key_tokens, 0));
    for (const Layout& round : pieces.rounds) {
      ASSERT_EQ(round.num_rows(), int(c.keys.size()));
      ASSERT_EQ(round.query_tokens(), pieces.query_tokens);
      const LayoutView v = round.view();
      std::vector<bool> slot_taken(pieces.query_tokens, false);
      bool has_queries = false;
      for (int r = 0; r < v.num_rows; ++r) {
        has_queries |= query_extent(v, r) > 0;
        for (int q = 0; q < query_extent(v, r); ++q) {
          const int slot = query_begin(v, r) + q;
          ASSERT_FALSE(slot_taken[slot]) << "two rows of a round share query slot " << slot;
          slot_taken[slot] = true;
          const KeyRange keys = attended_keys(v, r, q);
          for (int k = keys.first; k <= keys.last; ++k) ++times[slot][v.row_start[r] + k];
        }
      }
      EXPECT_TRUE(has_queries);
    }
    // The whole layout's mask, cell by cell, over the pieces' tokens.
    const LayoutView whole = c.varlen.view();
    int qs = 0;
    for (const CpPiece& qp : c.queries)
      for (int q = qp.first; q < qp.end; ++q, ++qs) {
        int ks = 0;
        for (const CpPiece& kp : c.keys)
          for (int k = kp.first; k < kp.end; ++k, ++ks) {
            const int expected = kp.doc == qp.doc && attended(cell_kind(whole, qp.doc, q, k)) ? 1 : 0;
            ASSERT_EQ(times[qs][ks], expected) << "trial " << trial << " document " << qp.doc << " query " << q
                                               << " against key " << k << " of document " << kp.doc;
            cells += expected;
          }
      }
  }
  EXPECT_GT(cells, 10000);
}

// count_tile over the rounds' visited tiles counts what the pieces attend: the useful cells.
TEST(CpPieceLayouts, CountedUsefulCellsAreTheAttendedCells) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    const Case c = random_case(rng);
    const CpPieceLayouts pieces = cp_piece_layouts(c.varlen, c.queries, c.keys);
    std::int64_t attended_cells = 0;
    const LayoutView whole = c.varlen.view();
    for (const CpPiece& qp : c.queries)
      for (const CpPiece& kp : c.keys)
        for (int q = qp.first; q < qp.end && kp.doc == qp.doc; ++q)
          for (int k = kp.first; k < kp.end; ++k) attended_cells += attended(cell_kind(whole, qp.doc, q, k));
    for (TileShape tile : {TileShape{64, 64}, TileShape{128, 128}, TileShape{16, 8}}) {
      CellCounts counted;
      for (const Layout& round : pieces.rounds) counted += count_layout(round, tile);
      EXPECT_EQ(counted[CellKind::useful], attended_cells) << "trial " << trial;
      EXPECT_EQ(counted[CellKind::bleed], 0);
    }
  }
}

TEST(CpPieceLayouts, ZigzagNeedsTwoRoundsForItsTwoChunks) {
  // One document of 1200 tokens, 3 ranks, zigzag: 6 chunks of 200, rank 0 holding chunks 0
  // and 5, rank 1 chunks 1 and 4. Rank 0's queries against rank 1's K/V, causal: chunk 5
  // attends both of rank 1's chunks, chunk 0 neither, so two rounds of one row each.
  const Layout varlen = make_varlen_layout({1200}, true);
  const CpPlan plan = plan_context_parallel(varlen, 3, CpStrategy::zigzag);
  ASSERT_EQ(plan.pieces[0], (std::vector<CpPiece>{{0, 0, 200}, {0, 1000, 1200}}));
  ASSERT_EQ(plan.pieces[1], (std::vector<CpPiece>{{0, 200, 400}, {0, 800, 1000}}));
  const CpPieceLayouts pieces = cp_piece_layouts(varlen, plan.pieces[0], plan.pieces[1]);
  ASSERT_EQ(pieces.rounds.size(), 2u);
  const RowQueries none{};
  // Q slots 200..399 hold chunk 5; its first query sits 1000 - 200 and 1000 - 800 along the two rows.
  EXPECT_EQ(pieces.rounds[0].row_queries, (std::vector<RowQueries>{{200, 200, 800}, none}));
  EXPECT_EQ(pieces.rounds[1].row_queries, (std::vector<RowQueries>{none, {200, 200, 200}}));
  EXPECT_EQ(pieces.query_source.front(), 0);
  EXPECT_EQ(pieces.query_source.back(), 1199);
  EXPECT_EQ(pieces.key_source.front(), 200);
  EXPECT_EQ(pieces.key_source.back(), 999);
  EXPECT_EQ(pieces.rounds[1].token_source, pieces.key_source);
}

TEST(CpPieceLayouts, RefusesAPieceOutsideItsDocument) {
  const Layout varlen = make_varlen_layout({10, 20}, true);
  EXPECT_THROW(cp_piece_layouts(varlen, {{0, 0, 11}}, {{0, 0, 10}}), std::invalid_argument);
  EXPECT_THROW(cp_piece_layouts(varlen, {{0, 0, 10}}, {{2, 0, 1}}), std::invalid_argument);
  EXPECT_THROW(cp_piece_layouts(varlen, {{1, 5, 4}}, {{1, 0, 20}}), std::invalid_argument);
  EXPECT_THROW(cp_piece_layouts(make_padded_layout({10, 20}, 32, true), {{0, 0, 10}}, {{0, 0, 10}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace attnlab
