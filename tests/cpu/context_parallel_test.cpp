#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "core/cost/context_parallel.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/cp_scenario.hpp"
#include "tests/cpu/worked_example.hpp"

namespace attnlab {
namespace {

std::int64_t total_useful(const CpCost& c) {
  std::int64_t sum = 0;
  for (const CpRankCost& r : c.ranks) sum += r.scores_useful();
  return sum;
}

std::int64_t most_useful(const CpCost& c) {
  std::int64_t most = 0;
  for (const CpRankCost& r : c.ranks) most = std::max(most, r.scores_useful());
  return most;
}

TEST(ContextParallel, PiecesDifferByAtMostOneTokenAndShortDocumentsLeaveSomeEmpty) {
  // 10 tokens in 4 pieces: cuts at floor(10 i / 4) = 0, 2, 5, 7, 10.
  EXPECT_EQ(document_piece(3, 10, 0, 4), (CpPiece{3, 0, 2}));
  EXPECT_EQ(document_piece(3, 10, 1, 4), (CpPiece{3, 2, 5}));
  EXPECT_EQ(document_piece(3, 10, 2, 4), (CpPiece{3, 5, 7}));
  EXPECT_EQ(document_piece(3, 10, 3, 4), (CpPiece{3, 7, 10}));
  // 3 tokens in 4 pieces: cuts 0, 0, 1, 2, 3: the first piece is empty.
  EXPECT_EQ(document_piece(0, 3, 0, 4).tokens(), 0);
  EXPECT_EQ(document_piece(0, 3, 1, 4), (CpPiece{0, 0, 1}));
  EXPECT_EQ(document_piece(0, 3, 3, 4), (CpPiece{0, 2, 3}));
}

// A document shorter than the piece count, contiguous: its tokens on the ranks of the
// non-empty pieces (cuts 0, 0, 1, 2, 3 for 3 tokens over 4), as document_piece says.
TEST(ContextParallel, ShortDocumentsGoWhereTheirPiecesAre) {
  const CpPlan plan = plan_context_parallel(documents({3, 1, 5}).varlen_layout(), 4, CpStrategy::contiguous);
  EXPECT_EQ(plan.pieces[0], (std::vector<CpPiece>{{2, 0, 1}}));
  EXPECT_EQ(plan.pieces[1], (std::vector<CpPiece>{{0, 0, 1}, {2, 1, 2}}));
  EXPECT_EQ(plan.pieces[2], (std::vector<CpPiece>{{0, 1, 2}, {2, 2, 3}}));
  EXPECT_EQ(plan.pieces[3], (std::vector<CpPiece>{{0, 2, 3}, {1, 0, 1}, {2, 3, 5}}));
  // The same pieces, one by one, for every length below and at the count.
  for (int length = 1; length <= 16; ++length) {
    const CpPlan one = plan_context_parallel(documents({length}).varlen_layout(), 16, CpStrategy::contiguous);
    for (int r = 0; r < 16; ++r) {
      const CpPiece piece = document_piece(0, length, r, 16);
      EXPECT_EQ(one.pieces[r], piece.tokens() ? std::vector<CpPiece>{piece} : std::vector<CpPiece>{}) << length;
    }
  }
}

TEST(ContextParallel, PlansHoldEveryTokenOnce) {
  const Scenario s = load_scenario("web-mix-2048");
  const Layout varlen = s.varlen_layout();
  for (CpStrategy strategy : all_cp_strategies)
    for (int ranks : {1, 3, 8, 64}) {
      const CpPlan plan = plan_context_parallel(varlen, ranks, strategy);
      ASSERT_EQ(plan.ranks(), ranks);
      std::vector<int> held(s.doc_lengths.size(), 0);
      for (const auto& pieces : plan.pieces)
        for (const CpPiece& p : pieces) {
          EXPECT_GT(p.tokens(), 0);
          held[p.doc] += p.tokens();
        }
      EXPECT_EQ(held, s.doc_lengths) << cp_strategy_name(strategy) << " over " << ranks;
    }
  EXPECT_THROW(plan_context_parallel(varlen, 0, CpStrategy::zigzag), std::invalid_argument);
  EXPECT_THROW(plan_context_parallel(varlen, max_cp_ranks + 1, CpStrategy::zigzag), std::invalid_argument);
  EXPECT_THROW(plan_context_parallel(s.packed_layout(), 2, CpStrategy::zigzag), std::invalid_argument);
}

// A document of 3 over 2 ranks in 4 zigzag chunks (cuts 0, 0, 1, 2, 3): rank 0 holds chunks
// 0 (empty) and 3, rank 1 chunks 1 and 2, adjacent, so one piece.
TEST(ContextParallel, ZigzagMergesAdjacentChunksAndSkipsEmptyOnes) {
  const CpPlan plan = plan_context_parallel(documents({3}).varlen_layout(), 2, CpStrategy::zigzag);
  EXPECT_EQ(plan.pieces[0], (std::vector<CpPiece>{{0, 2, 3}}));
  EXPECT_EQ(plan.pieces[1], (std::vector<CpPiece>{{0, 0, 2}}));
  // Rank N - 1 always holds the two middle chunks as one piece.
  const CpPlan eight = plan_context_parallel(documents({64}).varlen_layout(), 4, CpStrategy::zigzag);
  EXPECT_EQ(eight.pieces[3], (std::vector<CpPiece>{{0, 24, 40}}));
  EXPECT_EQ(eight.pieces[0], (std::vector<CpPiece>{{0, 0, 8}, {0, 56, 64}}));
}

// With one rank every strategy is the single-GPU varlen run: the same cells, kind by kind,
// and the same tiles as the cost model's (so the per-piece tiling is the layout's).
TEST(ContextParallel, OneRankIsTheCostModelsVarlen) {
  const Scenario noncausal = documents({100, 37, 300}, 2, false, {20, 5});
  for (const Scenario& s :
       {load_scenario("web-mix-2048"), load_scenario("web-mix-2048-window512"), two_documents(), noncausal})
    for (TileShape tile : {TileShape{64, 64}, TileShape{128, 32}, TileShape{2, 2}}) {
      const ImplementationCost varlen = model_costs(s, tile)[Implementation::varlen];
      for (CpStrategy strategy : all_cp_strategies) {
        const CpCost c = model_context_parallel(s, 1, strategy, tile);
        EXPECT_EQ(c.ranks[0].scores, varlen.scores) << s.name << " " << cp_strategy_name(strategy);
        EXPECT_EQ(c.ranks[0].tiles_visited, varlen.tiles_visited) << s.name;
        EXPECT_EQ(c.one_gpu_scores_computed, varlen.scores_computed()) << s.name;
        EXPECT_EQ(c.ranks[0].kv_bytes_ring + c.ranks[0].kv_bytes_all_gather + c.ranks[0].kv_bytes_needed, 0);
        EXPECT_DOUBLE_EQ(c.useful_imbalance, 1.0);
      }
    }
}

// Splitting never changes the useful scores, only who computes them.
TEST(ContextParallel, UsefulScoresAddUpToTheWholeRun) {
  for (const char* name : {"web-mix-2048", "web-mix-2048-window512", "long-tail"}) {
    const Scenario s = load_scenario(name);
    const std::int64_t useful = model_costs(s)[Implementation::varlen].scores_useful();
    for (CpStrategy strategy : all_cp_strategies)
      for (int ranks : {2, 8}) EXPECT_EQ(total_useful(model_context_parallel(s, ranks, strategy)), useful) << name;
  }
}

// Contiguous causal on one document of L = N c tokens: rank i's queries iN..., each sees
// every earlier key, so rank i does c^2 i + c (c + 1) / 2 useful scores and the last rank
// (2L - c + 1) / (L + 1) = ((2N - 1) L + N) / (N (L + 1)) of the mean: 1.5, 1.75, 1.875 for
// N = 2, 4, 8 as L grows, and (2N - 1) / N - (N - 1) / (N (L + 1)) exactly.
TEST(ContextParallel, ContiguousCausalLastRankDoesTwoNMinusOneOverNOfTheMean) {
  for (std::int64_t n : {2, 4, 8})
    for (std::int64_t c : {1, 3, 64, 1000, 131072}) {
      const std::int64_t l = n * c;
      const CpCost cost = model_context_parallel(documents({int(l)}, 2), int(n), CpStrategy::contiguous);
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(cost.ranks[i].scores_useful(), 2 * (c * c * i + c * (c + 1) / 2)) << "rank " << i;
      // max / mean = most * N / total, as integers: most * N * N (L + 1) == total * ((2N - 1) L + N)
      // (128-bit: the products pass 2^63 for the longest document).
      const auto wide = [](std::int64_t x) { return static_cast<__int128>(x); };
      EXPECT_TRUE(wide(most_useful(cost)) * n * n * (l + 1) == wide(total_useful(cost)) * ((2 * n - 1) * l + n))
          << n << " " << l;
      EXPECT_DOUBLE_EQ(cost.useful_imbalance, double((2 * n - 1) * l + n) / double(n * (l + 1)));
      EXPECT_DOUBLE_EQ(cost.ranks[n - 1].useful_vs_mean, cost.useful_imbalance);
    }
  const auto limit = [](int n) {
    return model_context_parallel(documents({1 << 20}), n, CpStrategy::contiguous).useful_imbalance;
  };
  EXPECT_NEAR(limit(2), 1.5, 1e-6);
  EXPECT_NEAR(limit(4), 1.75, 1e-5);
  EXPECT_NEAR(limit(8), 1.875, 1e-5);
}

// Zigzag: chunk j of c tokens does c^2 j + c (c + 1) / 2 useful scores, so rank i's chunks i and
// 2N - 1 - i do c^2 (2N - 1) + c (c + 1) whatever i: exact balance, per document. With c a
// multiple of the tile (m tiles) the tiles balance too: m^2 (2N - 1) + m (m + 1) per rank.
TEST(ContextParallel, ZigzagBalancesEachDocumentExactly) {
  for (int n : {2, 4, 8}) {
    const std::vector<int> chunks{1, 3, 64, 128};  // c of each document
    std::vector<int> lengths;
    for (int c : chunks) lengths.push_back(2 * n * c);
    const CpCost cost = model_context_parallel(documents(lengths), n, CpStrategy::zigzag, {64, 64});
    std::int64_t useful = 0;
    for (std::int64_t c : chunks) useful += c * c * (2 * n - 1) + c * (c + 1);
    for (const CpRankCost& r : cost.ranks) EXPECT_EQ(r.scores_useful(), useful) << "N = " << n;
    EXPECT_DOUBLE_EQ(cost.useful_imbalance, 1.0);
    const CpCost aligned =
        model_context_parallel(documents({2 * n * 64, 2 * n * 128}), n, CpStrategy::zigzag, {64, 64});
    for (const CpRankCost& r : aligned.ranks) {
      EXPECT_EQ(r.tiles_visited, (1 * (2 * n - 1) + 2) + (4 * (2 * n - 1) + 6));
      EXPECT_EQ(r.scores_computed(), r.tiles_visited * 64 * 64);
    }
    EXPECT_DOUBLE_EQ(aligned.computed_imbalance, 1.0);
  }
}

// Whole documents: nothing travels. Documents of 5, 8, 3, 6, 4 do L (L + 1) / 2 = 15, 36, 6,
// 21, 10 useful scores; over 2 ranks, the most first onto the least loaded: 36 -> rank 0,
// 21 -> 1, 15 -> 1 (21 < 36), 10 -> 0 (36 = 36: the lower rank), 6 -> 1 (36 < 46): 46 and 42.
TEST(ContextParallel, WholeDocumentsMoveNoBytesAndBalanceGreedily) {
  const CpCost c = model_context_parallel(documents({5, 8, 3, 6, 4}), 2, CpStrategy::documents);
  EXPECT_EQ(c.plan.pieces[0], (std::vector<CpPiece>{{1, 0, 8}, {4, 0, 4}}));
  EXPECT_EQ(c.plan.pieces[1], (std::vector<CpPiece>{{0, 0, 5}, {2, 0, 3}, {3, 0, 6}}));
  EXPECT_EQ(c.ranks[0].scores_useful(), 46);
  EXPECT_EQ(c.ranks[1].scores_useful(), 42);
  EXPECT_DOUBLE_EQ(c.useful_imbalance, 92.0 / 88.0);
  for (const CpRankCost& r : c.ranks) {
    EXPECT_EQ(r.kv_bytes_ring, 0);
    EXPECT_EQ(r.kv_bytes_all_gather, 0);
    EXPECT_EQ(r.kv_bytes_needed, 0);
  }
  const Scenario web = load_scenario("web-mix-2048");
  const CpCost many = model_context_parallel(web, 8, CpStrategy::documents);
  EXPECT_EQ(many.total(&CpRankCost::kv_bytes_ring) + many.total(&CpRankCost::kv_bytes_all_gather), 0);
  EXPECT_EQ(many.total_scores_computed(), model_costs(web)[Implementation::varlen].scores_computed());
}

// The worked example (documents of 3 and 5, causal, tile 2 x 2, one head, D = 2, bf16) over 2
// ranks, contiguous: rank 0 holds [0, 1) of document 0 and [0, 2) of document 1, rank 1
// [1, 3) and [2, 5). Tile by tile, (first query, first key, rows x columns):
//  rank 0: doc 0 (0, 0, 1x2): q0k0 useful, q0k1 masked, + the tile's second row: 2 padding;
//          doc 1 (0, 0, 2x2): 3 useful, 1 masked.                       -> 4 u, 2 m, 2 p, 2 tiles
//  rank 1: doc 0 (1, 0, 2x4): q1 k0 k1 useful, k2 masked, k3 past the end; q2 k0..k2, k3
//          -> 5 u, 1 m, 2 p, 2 tiles; doc 1 (2, 0, 2x4): q2 3 u 1 m, q3 4 u; (4, 0, 1x6): q4
//          k0..k4 useful, k5 padding, + a padding row of 6       -> 17 u, 2 m, 9 p, 7 tiles
// K and V of a token: 2 x 1 KV head x 2 x 2 bytes = 8. Both documents are split: shards
// 3 and 5 tokens; ring: rank 0 receives 5, rank 1 3; all-gather: (2 - 1) x 5 each; needed:
// rank 0 none, rank 1 keys [0, 1) of document 0 and [0, 2) of document 1.
TEST(ContextParallel, HandCountedTwoDocumentsOverTwoRanks) {
  const CpCost c = model_context_parallel(two_documents(), 2, CpStrategy::contiguous, {2, 2});
  EXPECT_EQ(c.kv_bytes_per_token, 8);
  EXPECT_EQ(c.ranks[0].scores, (CellCounts{4, 2, 2, 0}));
  EXPECT_EQ(c.ranks[0].tiles_visited, 2);
  EXPECT_EQ(c.ranks[1].scores, (CellCounts{17, 2, 9, 0}));
  EXPECT_EQ(c.ranks[1].tiles_visited, 7);
  EXPECT_EQ(c.ranks[0].tokens, 3);
  EXPECT_EQ(c.ranks[1].tokens, 5);
  EXPECT_EQ(c.ranks[0].kv_bytes_ring, 5 * 8);
  EXPECT_EQ(c.ranks[1].kv_bytes_ring, 3 * 8);
  EXPECT_EQ(c.ranks[0].kv_bytes_all_gather, 5 * 8);
  EXPECT_EQ(c.ranks[1].kv_bytes_all_gather, 5 * 8);
  EXPECT_EQ(c.ranks[0].kv_bytes_needed, 0);
  EXPECT_EQ(c.ranks[1].kv_bytes_needed, 3 * 8);
  EXPECT_EQ(c.one_gpu_scores_computed, 36);
  EXPECT_DOUBLE_EQ(c.useful_imbalance, 34.0 / 21.0);
  EXPECT_DOUBLE_EQ(c.computed_imbalance, 56.0 / 36.0);
}

// A causal window of 100 over one document of 1024 on 4 contiguous ranks: each rank but the
// first needs only the 100 keys before its first query, while a ring still passes 768 tokens.
// Rank 0's queries see min(q, 100) + 1 keys: 5151 + 155 x 101; the others 256 x 101 each.
TEST(ContextParallel, AWindowNeedsOnlyTheKeysItReaches) {
  const CpCost c = model_context_parallel(documents({1024}, 1, true, {100, 0}), 4, CpStrategy::contiguous);
  EXPECT_EQ(c.ranks[0].scores_useful(), 5151 + 155 * 101);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(c.ranks[r].kv_bytes_needed, (r == 0 ? 0 : 100) * c.kv_bytes_per_token) << r;
    EXPECT_EQ(c.ranks[r].kv_bytes_ring, 768 * c.kv_bytes_per_token) << r;
    if (r > 0) {
      EXPECT_EQ(c.ranks[r].scores_useful(), 256 * 101) << r;
    }
  }
}

// Not causal, every query sees the whole document: contiguous is balanced and every rank
// needs every other rank's tokens (zigzag's two chunks of a rank overlap in what they need).
TEST(ContextParallel, NonCausalNeedsEverything) {
  for (CpStrategy strategy : {CpStrategy::contiguous, CpStrategy::zigzag}) {
    const CpCost c = model_context_parallel(documents({640}, 1, false), 4, strategy);
    for (const CpRankCost& r : c.ranks) {
      EXPECT_EQ(r.scores_useful(), 160 * 640);
      EXPECT_EQ(r.kv_bytes_needed, 480 * c.kv_bytes_per_token);
      EXPECT_EQ(r.kv_bytes_needed, r.kv_bytes_ring);
    }
  }
}

// K and V bytes follow the KV heads (GQA), the head dim and the element size.
TEST(ContextParallel, BytesFollowKvHeadsAndHeadDim) {
  Scenario s = documents({4096, 4096});
  s.heads = 32;
  s.kv_heads = 4;
  s.head_dim = 128;
  const CpCost c = model_context_parallel(s, 4, CpStrategy::zigzag);
  EXPECT_EQ(c.kv_bytes_per_token, 2 * 4 * 128 * 2);
  for (const CpRankCost& r : c.ranks) {
    EXPECT_EQ(r.kv_bytes_ring, 3 * 2048 * c.kv_bytes_per_token);
    EXPECT_EQ(r.kv_bytes_all_gather, r.kv_bytes_ring);  // equal shards: nothing padded
  }
  // Uneven shards: NCCL's all-gather moves equal counts, so every rank receives N - 1 of the largest.
  const CpCost uneven = model_context_parallel(documents({10}), 4, CpStrategy::contiguous);  // 2, 3, 2, 3
  EXPECT_EQ(uneven.ranks[0].kv_bytes_ring, 8 * uneven.kv_bytes_per_token);
  EXPECT_EQ(uneven.ranks[1].kv_bytes_ring, 7 * uneven.kv_bytes_per_token);
  for (const CpRankCost& r : uneven.ranks) EXPECT_EQ(r.kv_bytes_all_gather, 9 * uneven.kv_bytes_per_token);
}

}  // namespace
}  // namespace attnlab
