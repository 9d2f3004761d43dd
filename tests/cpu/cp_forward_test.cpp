#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "reference/cp_forward.hpp"
#include "tests/cpu/cp_scenario.hpp"

namespace attnlab {
namespace {

constexpr double tolerance = 1e-12;

// Two query heads reading one KV head, head dim 8.
Scenario small_heads(Scenario s) {
  s.heads = 2;
  s.kv_heads = 1;
  s.head_dim = 8;
  return s;
}

AttentionInputs inputs_of(const Scenario& s, std::uint64_t seed = 7) {
  return make_random_inputs(s.total_tokens(), s.heads, s.kv_heads, s.head_dim, s.dtype, seed);
}

// Two partials by hand: weights e^lse of 2 and 3 give lse = log 5 and o = (2 o_a + 3 o_b) / 5.
TEST(CpMerge, TwoPartialsByHand) {
  double lse = std::log(2.0);
  double o[2] = {1.0, 0.0};
  const double part_o[2] = {2.0, 1.0};
  merge_by_lse(lse, o, std::log(3.0), part_o, 2);
  EXPECT_NEAR(lse, std::log(5.0), 1e-15);
  EXPECT_NEAR(o[0], 8.0 / 5.0, 1e-15);
  EXPECT_NEAR(o[1], 3.0 / 5.0, 1e-15);
  // A part with no key (-inf) changes nothing; merged into nothing, it is copied.
  merge_by_lse(lse, o, -INFINITY, part_o, 2);
  EXPECT_NEAR(o[0], 8.0 / 5.0, 1e-15);
  double empty_lse = -INFINITY, empty_o[2] = {0, 0};
  merge_by_lse(empty_lse, empty_o, std::log(3.0), part_o, 2);
  EXPECT_EQ(empty_lse, std::log(3.0));
  EXPECT_EQ(empty_o[1], 1.0);
}

// One document of 7 tokens, its keys cut in two halves: each half's partial, merged,
// is the whole softmax of every query.
TEST(CpMerge, TwoHalvesOfTheKeysMergeToTheWhole) {
  const Scenario s = small_heads(documents({7}));
  const Layout varlen = s.varlen_layout();
  const AttentionInputs in = inputs_of(s);
  const double scale = default_scale(s.head_dim);
  const std::vector<CpPiece> queries = {{0, 0, 7}};
  CpPartial merged = cp_partial_attention(varlen, in, scale, queries, {{0, 0, 3}});
  // Queries 0..2 see only the first half: the second holds nothing for them.
  const CpPartial second = cp_partial_attention(varlen, in, scale, queries, {{0, 3, 7}});
  for (int q = 0; q < 3; ++q) EXPECT_EQ(second.lse_at(q, 0), -INFINITY);
  merge_partial(merged, second);
  const ReferenceOutput whole = reference_materialized(varlen, in, scale);
  const CpForwardError error = compare_cp_to_whole(varlen, merged, whole);
  EXPECT_LT(error.rel_l2, tolerance);
  EXPECT_LT(error.lse_max_abs, tolerance);
  // One partial over both halves at once is the whole too.
  const CpPartial at_once = cp_partial_attention(varlen, in, scale, queries, {{0, 0, 3}, {0, 3, 7}});
  EXPECT_LT(compare_cp_to_whole(varlen, at_once, whole).rel_l2, tolerance);
}

// A part may hold runs of the whole's queries (a step computes only the queries that attend its
// keys); queries the whole does not hold, or out of order, or another shape, are refused.
TEST(CpMerge, APartMergesIntoTheQueriesItHolds) {
  const Scenario s = small_heads(documents({7, 5}));
  const Layout varlen = s.varlen_layout();
  const AttentionInputs in = inputs_of(s);
  const double scale = default_scale(s.head_dim);
  CpPartial whole = cp_partial_attention(varlen, in, scale, {{0, 0, 7}, {1, 0, 5}}, {{0, 0, 3}, {1, 0, 2}});
  // Queries 3..6 and 2..4 against the rest of their documents' keys.
  const CpPartial rest = cp_partial_attention(varlen, in, scale, {{0, 3, 7}, {1, 2, 5}}, {{0, 3, 7}, {1, 2, 5}});
  merge_partial(whole, rest);
  EXPECT_LT(compare_cp_to_whole(varlen, whole, reference_materialized(varlen, in, scale)).rel_l2, tolerance);
  CpPartial a = empty_cp_partial({{0, 0, 4}}, 1, 2);
  EXPECT_NO_THROW(merge_partial(a, empty_cp_partial({{0, 1, 3}}, 1, 2)));
  EXPECT_THROW(merge_partial(a, empty_cp_partial({{0, 2, 6}}, 1, 2)), std::invalid_argument);
  EXPECT_THROW(merge_partial(a, empty_cp_partial({{1, 0, 2}}, 1, 2)), std::invalid_argument);
  EXPECT_THROW(merge_partial(a, empty_cp_partial({{0, 2, 3}, {0, 0, 1}}, 1, 2)), std::invalid_argument);
  EXPECT_THROW(merge_partial(a, empty_cp_partial({{0, 0, 4}}, 2, 2)), std::invalid_argument);
}

// What the check costs follows the scores attended: each exchange evaluates every useful score
// of every head once and makes partials of at most as many values x head dim, whatever the ranks
// (the ranks compared every piece with every other, and copied a piece's whole document per head).
// Documents of 4096, 3 and 700 tokens over 1024 ranks under a window of 3: a query attends
// min(q, 3) + 1 keys, 4L - 6 over a document of L >= 3.
TEST(CpForward, ScoresAndPartialsFollowTheUsefulScoresNotTheRanks) {
  const Scenario s = small_heads(documents({4096, 3, 700}, 1, true, Window{3, 0}));
  const Layout varlen = s.varlen_layout();
  const AttentionInputs in = inputs_of(s);
  const double scale = default_scale(s.head_dim);
  const ReferenceOutput whole = reference_materialized(varlen, in, scale);
  const std::int64_t useful = (4 * 4096 - 6) + (4 * 3 - 6) + (4 * 700 - 6);  // one head's
  for (CpStrategy strategy : all_cp_strategies)
    for (CpExchange exchange : all_cp_exchanges) {
      SCOPED_TRACE(std::string(cp_strategy_name(strategy)) + " " + cp_exchange_name(exchange));
      const CpCost model = model_context_parallel(s, 1024, strategy);
      const CpForwardRun run = run_cp_forward(varlen, in, scale, model.plan, exchange, whole);
      EXPECT_LT(run.worst_rel_l2, tolerance);
      EXPECT_EQ(run.scores, useful * s.heads);
      EXPECT_LE(run.partial_values, useful * s.heads * s.head_dim);
      EXPECT_EQ(run.keys_received * model.kv_bytes_per_token, model.total(&CpRankCost::kv_bytes_ring));
      EXPECT_EQ(run.keys_needed * model.kv_bytes_per_token, model.total(&CpRankCost::kv_bytes_needed));
    }
}

TEST(CpSchedule, RingStepsAndOneAllGather) {
  EXPECT_EQ(cp_schedule(CpExchange::ring, 1, 4), (std::vector<std::vector<int>>{{1}, {0}, {3}, {2}}));
  EXPECT_EQ(cp_schedule(CpExchange::all_gather, 1, 4), (std::vector<std::vector<int>>{{1, 0, 3, 2}}));
  EXPECT_EQ(cp_schedule(CpExchange::ring, 0, 1), (std::vector<std::vector<int>>{{0}}));
}

// A step's K/V: the rank's own pieces from itself, another rank's shard from it, in the holders' order.
TEST(CpSchedule, StepKeysAreOwnPiecesAndOtherRanksShards) {
  // Contiguous over 3 ranks: document 0 in three pieces; document 1 (one token) whole on rank 2,
  // so it is in rank 2's pieces and not in its shard.
  const Layout varlen = make_varlen_layout({1200, 1}, true);
  const CpPlan plan = plan_context_parallel(varlen, 3, CpStrategy::contiguous);
  const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
  ASSERT_EQ(plan.pieces[2], (std::vector<CpPiece>{{0, 800, 1200}, {1, 0, 1}}));
  ASSERT_EQ(shards[2], (std::vector<CpPiece>{{0, 800, 1200}}));
  EXPECT_EQ(cp_step_keys(plan, shards, 2, {2}), plan.pieces[2]);
  EXPECT_EQ(cp_step_keys(plan, shards, 0, {2}), shards[2]);
  std::vector<CpPiece> gathered = plan.pieces[1];
  for (int holder : {0, 2}) gathered.insert(gathered.end(), shards[holder].begin(), shards[holder].end());
  EXPECT_EQ(cp_step_keys(plan, shards, 1, {1, 0, 2}), gathered);
  EXPECT_EQ(cp_step_keys(plan, shards, 1, {}), std::vector<CpPiece>{});
}

// Every strategy and exchange on awkward lengths: each rank's merged output is the whole
// reference's; ring and all-gather agree; the K/V a run received and the K/V its queries
// attended are the model's ring and needed bytes; a ring step is skipped or needed, never both.
void check_every_strategy(const Scenario& s, int ranks) {
  const Layout varlen = s.varlen_layout();
  const AttentionInputs in = inputs_of(s);
  const double scale = default_scale(s.head_dim);
  const ReferenceOutput whole = reference_materialized(varlen, in, scale);
  for (CpStrategy strategy : all_cp_strategies) {
    SCOPED_TRACE(std::string(cp_strategy_name(strategy)) + " over " + std::to_string(ranks) + " ranks");
    const CpCost model = model_context_parallel(s, ranks, strategy);
    const CpForwardRun ring = run_cp_forward(varlen, in, scale, model.plan, CpExchange::ring, whole);
    const CpForwardRun gather = run_cp_forward(varlen, in, scale, model.plan, CpExchange::all_gather, whole);
    for (const CpForwardRun* run : {&ring, &gather}) {
      EXPECT_LT(run->worst_rel_l2, tolerance);
      EXPECT_LT(run->worst_lse_abs, tolerance);
      EXPECT_EQ(run->keys_needed * model.kv_bytes_per_token, model.total(&CpRankCost::kv_bytes_needed));
      EXPECT_EQ(run->keys_received * model.kv_bytes_per_token, model.total(&CpRankCost::kv_bytes_ring));
    }
    for (int r = 0; r < ranks; ++r) {
      const CpRankForward &a = ring.ranks[r], &b = gather.ranks[r];
      EXPECT_EQ(a.keys_needed * model.kv_bytes_per_token, model.ranks[r].kv_bytes_needed) << "rank " << r;
      EXPECT_EQ(a.blocks_needed + a.blocks_skipped, ranks - 1);
      EXPECT_EQ(a.blocks_needed, b.blocks_needed);
      EXPECT_EQ(a.blocks_needed > 0, a.keys_needed > 0);
      ASSERT_EQ(a.out.o.size(), b.out.o.size());
      for (std::size_t i = 0; i < a.out.o.size(); ++i) ASSERT_NEAR(a.out.o[i], b.out.o[i], tolerance) << i;
      for (std::size_t i = 0; i < a.out.lse.size(); ++i) ASSERT_NEAR(a.out.lse[i], b.out.lse[i], tolerance) << i;
    }
    if (strategy == CpStrategy::documents) {
      EXPECT_EQ(ring.keys_received, 0);
    }
  }
}

TEST(CpForward, MergedEqualsWholeForEveryStrategyAndRankCount) {
  // 1 and 7 tokens are shorter than 2N for most N; 129 and 300 cut unevenly.
  const Scenario s = small_heads(documents({1, 7, 64, 129, 300}));
  for (int ranks : {1, 2, 3, 4, 8}) check_every_strategy(s, ranks);
}

TEST(CpForward, MergedEqualsWholeUnderAWindowAndWithoutCausality) {
  check_every_strategy(small_heads(documents({1, 7, 64, 129}, 1, true, Window{20, 0})), 3);
  check_every_strategy(small_heads(documents({5, 64, 129}, 1, false)), 4);
}

}  // namespace
}  // namespace attnlab
