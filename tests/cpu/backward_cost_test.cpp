#include <gtest/gtest.h>

#include <random>

#include "core/cost/backward_cost.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/worked_example.hpp"

namespace attnlab {
namespace {

BackwardModel backward_of(const Scenario& s, TileShape tile, DqAccumulation dq = DqAccumulation::atomic_fp32) {
  return model_backward_costs(s, model_costs(s, tile), dq);
}

const BackwardCost& of(const BackwardModel& m, Implementation i) { return m[static_cast<int>(i)]; }

// Tile 2x2, one head. One head's row of Q (or K, V, O, dO, a gradient) is 2 * 2 = 4 bytes per token.
TEST(BackwardCost, HandCountedTwoDocumentsVarlen) {
  const BackwardCost b = of(backward_of(two_documents(), {2, 2}), Implementation::varlen);
  // The forward's 9 tiles and 36 cells; 5 products of 2 * D = 4 FLOPs per cell.
  EXPECT_EQ(b.tiles_visited, 9);
  EXPECT_EQ(b.cells, 36);
  EXPECT_EQ(b.scores_recomputed, 36);
  EXPECT_EQ(b.gemms, 5);
  EXPECT_EQ(b.flops, 36 * 20);
  EXPECT_EQ(b.flops_useful, 21 * 20);
  EXPECT_DOUBLE_EQ(b.flops_vs_forward, 2.5);
  // Query tokens loaded, per visited (query tile, key tile) pair: document of 3: qt0 visits 1
  // tile x 2 queries, qt1 2 tiles x 1 query -> 4; document of 5: 1x2 + 2x2 + 3x1 = 9 -> Ql = 13.
  const BackwardHbmBytes& m = b.hbm;
  EXPECT_EQ(m.o_read, 8 * 4);
  EXPECT_EQ(m.do_read, 8 * 4 + 13 * 4);  // the Δ pass, then every visit
  EXPECT_EQ(m.delta_written, 8 * 4);
  EXPECT_EQ(m.k_read, 8 * 4);
  EXPECT_EQ(m.v_read, 8 * 4);
  EXPECT_EQ(m.q_read, 13 * 4);
  EXPECT_EQ(m.lse_read, 13 * 4);
  EXPECT_EQ(m.delta_read, 13 * 4);
  // dQ accumulator, 8 bytes a token in fp32: zeroed (64), 13 query rows of atomics (104), converted (64).
  EXPECT_EQ(m.sums_written, 64 + 104);
  EXPECT_EQ(m.sums_read, 64);
  EXPECT_EQ(m.dq_written + m.dk_written + m.dv_written, 3 * 32);
  EXPECT_EQ(m.p_read + m.dp_written + m.dp_read + m.ds_written + m.ds_read, 0);
  EXPECT_EQ(m.total(), 696);
  // Workspace: Δ (32) and the dQ accumulator (64); the forward kept its LSE and index arrays (112).
  EXPECT_EQ(b.workspace_bytes, 96);
  EXPECT_EQ(b.extra_memory_bytes, 112 + 96);
}

TEST(BackwardCost, HandCountedTwoDocumentsNaive) {
  const BackwardCost b = of(backward_of(two_documents(), {2, 2}), Implementation::naive);
  // Two rows padded to 5, one 5x5 tile each: 50 cells, 4 products, no recomputation.
  EXPECT_EQ(b.cells, 50);
  EXPECT_EQ(b.tiles_visited, 2);
  EXPECT_EQ(b.gemms, 4);
  EXPECT_EQ(b.scores_recomputed, 0);
  EXPECT_EQ(b.flops, 50 * 16);
  EXPECT_EQ(b.flops_useful, 21 * 20);
  EXPECT_DOUBLE_EQ(b.flops_vs_forward, 2.0);
  // 10 positions: one head's tensor is 40 bytes, its fp32 sum 80.
  const BackwardHbmBytes& m = b.hbm;
  EXPECT_EQ(m.o_read, 40);
  EXPECT_EQ(m.do_read, 3 * 40);  // Δ, dV, dP
  EXPECT_EQ(m.q_read + m.k_read + m.v_read, 3 * 40);
  EXPECT_EQ(m.p_read, 2 * 50 * 2);
  EXPECT_EQ(m.dp_written, 50 * 4);
  EXPECT_EQ(m.dp_read, 50 * 4);
  EXPECT_EQ(m.delta_written, 40);
  EXPECT_EQ(m.delta_read, 40);
  EXPECT_EQ(m.ds_written, 50 * 2);
  EXPECT_EQ(m.ds_read, 2 * 50 * 2);
  EXPECT_EQ(m.sums_written, 2 * 80);  // dK and dV, written by the one head
  EXPECT_EQ(m.sums_read, 2 * 80);     // read by the conversion
  EXPECT_EQ(m.lse_read, 0);
  EXPECT_EQ(m.total(), 1700);
  // Workspace: Δ 40, dP 200, dS 100, the dK and dV sums 160. The forward kept S, P and the index arrays: 388.
  EXPECT_EQ(b.workspace_bytes, 500);
  EXPECT_EQ(b.extra_memory_bytes, 388 + 500);
}

TEST(BackwardCost, SeparateDqPassTradesAtomicsForRecomputation) {
  const BackwardCost b =
      of(backward_of(two_documents(), {2, 2}, DqAccumulation::separate_pass), Implementation::varlen);
  EXPECT_EQ(b.dq_accumulation, DqAccumulation::separate_pass);
  EXPECT_EQ(b.gemms, 7);
  EXPECT_EQ(b.flops, 36 * 28);
  EXPECT_EQ(b.scores_recomputed, 72);
  EXPECT_DOUBLE_EQ(b.flops_vs_forward, 3.5);
  // The dQ kernel reads Q, dO, LSE, Δ once (32 each) and K, V as the forward (64 each).
  EXPECT_EQ(b.hbm.q_read, 13 * 4 + 32);
  EXPECT_EQ(b.hbm.k_read, 32 + 64);
  EXPECT_EQ(b.hbm.sums_written + b.hbm.sums_read, 0);
  EXPECT_EQ(b.hbm.total(), 720);
  EXPECT_EQ(b.workspace_bytes, 32);
  // naive has no dQ to accumulate: the choice changes nothing there.
  EXPECT_EQ(of(backward_of(two_documents(), {2, 2}, DqAccumulation::separate_pass), Implementation::naive).hbm.total(),
            1700);
}

TEST(BackwardCost, QueryHeadsAndKvHeadsScaleTheirOwnTensors) {
  const BackwardModel one = backward_of(two_documents(), {2, 2});
  const BackwardModel gqa = backward_of(two_documents(4, 2), {2, 2});
  for (Implementation i : all_implementations) {
    const BackwardCost &a = of(one, i), &g = of(gqa, i);
    EXPECT_EQ(g.flops, 4 * a.flops) << implementation_name(i);
    EXPECT_EQ(g.hbm.q_read, 4 * a.hbm.q_read) << implementation_name(i);
    EXPECT_EQ(g.hbm.do_read, 4 * a.hbm.do_read) << implementation_name(i);
    EXPECT_EQ(g.hbm.k_read, 2 * a.hbm.k_read) << implementation_name(i);
    EXPECT_EQ(g.hbm.dk_written, 2 * a.hbm.dk_written) << implementation_name(i);
    EXPECT_EQ(g.hbm.dq_written, 4 * a.hbm.dq_written) << implementation_name(i);
  }
  // naive's dK, dV sums: written by every query head, kept per kv head.
  EXPECT_EQ(of(gqa, Implementation::naive).hbm.sums_written, 4 * 2 * 80);
  EXPECT_EQ(of(gqa, Implementation::naive).workspace_bytes - of(one, Implementation::naive).workspace_bytes,
            3 * (40 + 300) + 1 * 160);  // Δ and dP, dS per query head; the sums per kv head
}

// With square tiles and rows a whole number of tiles, a key tile is visited by as many
// query tiles as a query tile visits key tiles: the backward reads Q as the forward reads K.
TEST(BackwardCost, SquareTilesReadQueriesAsTheForwardReadsKeys) {
  const Scenario s = load_scenario("uniform-64x512");
  const CostModel forward = model_costs(s, {64, 64});
  const BackwardModel backward = model_backward_costs(s, forward);
  for (Implementation i : {Implementation::padded, Implementation::packed, Implementation::varlen}) {
    const BackwardCost& b = backward[static_cast<int>(i)];
    EXPECT_EQ(b.hbm.q_read / s.heads, forward[i].hbm.k_read / s.kv_heads) << implementation_name(i);
    EXPECT_EQ(b.tiles_visited, forward[i].tiles_visited);
    EXPECT_EQ(b.flops, 10LL * s.head_dim * forward[i].scores_computed());
  }
}

// The backward visits the forward's tiles from the key side: the query tiles it loads
// are, pair for pair, those a query tile's walk over its visited key tiles implies.
TEST(BackwardCost, KeySideWalkLoadsTheForwardsPairs) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 30; ++trial) {
    Scenario s = two_documents();
    std::vector<int> lengths(1 + rng() % 6);
    for (int& len : lengths) len = 1 + rng() % 90;
    s.length_source = ListLengths{lengths};
    s.causal = trial % 3 != 0;
    s.window = trial % 2  ? Window{}
               : s.causal ? Window{1 + int(rng() % 40), 0}
                          : Window{int(rng() % 40), int(rng() % 40)};
    s.row_len = 8 + int(rng() % 80);
    s.resolve();
    const TileShape t{1 + int(rng() % 24), 1 + int(rng() % 24)};
    const CostModel forward = model_costs(s, t);
    const Layout layouts[] = {s.padded_layout(), s.packed_layout(), s.varlen_layout()};
    for (const Layout& layout : layouts) {
      const Implementation impl = layout.kind == LayoutKind::padded   ? Implementation::padded
                                  : layout.kind == LayoutKind::packed ? Implementation::packed
                                                                      : Implementation::varlen;
      const LayoutView v = layout.view();
      std::int64_t queries = 0;
      for (int r = 0; r < v.num_rows; ++r)
        for (int qt = 0; qt < query_tiles(v, t, r); ++qt)
          queries += key_tiles_visited(v, t, r, qt).count() * std::min(t.rows, row_extent(v, r) - qt * t.rows);
      const BackwardCost b = backward_cost(s, forward[impl], layout);
      EXPECT_EQ(b.hbm.q_read, queries * 2 * 2) << layout_kind_name(layout.kind) << " trial " << trial;
      EXPECT_EQ(b.hbm.k_read, layout.buffer_tokens() * 2 * 2) << "every key tile is visited";
    }
  }
}

// The one-long-document case: naive keeps S and P and builds dP and dS, four matrices
// of 16 x 16384^2 cells; flash keeps the LSE, Δ and the dQ accumulator.
TEST(BackwardCost, OneLongDocumentNaiveNeedsTensOfGigabytes) {
  const Scenario s = load_scenario("one-doc-16384");
  const CostModel forward = model_costs(s);
  const BackwardModel backward = model_backward_costs(s, forward);
  const std::int64_t cells = 16LL * 16384 * 16384, n = 16384;
  const BackwardCost& naive = backward[static_cast<int>(Implementation::naive)];
  EXPECT_EQ(naive.extra_memory_bytes - forward[Implementation::naive].extra_memory_bytes,
            n * 4 * 16 + cells * (4 + 2) + 2 * n * 128 * 4 * 16);
  EXPECT_GT(naive.extra_memory_bytes, 2 * cells * (4 + 2));
  const BackwardCost& varlen = backward[static_cast<int>(Implementation::varlen)];
  EXPECT_EQ(varlen.workspace_bytes, n * 4 * 16 + n * 128 * 4 * 16);
  EXPECT_LT(varlen.extra_memory_bytes, 200LL << 20);
}

TEST(BackwardCost, RefusesALayoutOfAnotherImplementation) {
  const Scenario s = two_documents();
  const CostModel forward = model_costs(s, {2, 2});
  EXPECT_THROW(backward_cost(s, forward[Implementation::varlen], s.packed_layout()), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab
