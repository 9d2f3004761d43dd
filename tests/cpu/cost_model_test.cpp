#include <gtest/gtest.h>

#include <random>

#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/worked_example.hpp"

namespace attnlab {
namespace {

// Two documents of 3 and 5 tokens, causal, tile 2x2, head_dim 2, one head, bf16, rows of 8.
// Every number below was worked out by hand, tile by tile (written as (query tile, key tile)).
TEST(CostModel, HandCountedTwoDocuments) {
  const CostModel m = model_costs(two_documents(), {2, 2});

  // varlen. Document of 3 (query tiles 0,1): (0,0) 3 useful + 1 masked; (1,0) q2: 2 useful,
  // q3 overhang: 2 padding; (1,1) q2k2 useful, q2k3 + q3 row: 3 padding -> 6 useful, 1 masked, 5 padding.
  // Document of 5 (query tiles 0..2): (0,0) 3u 1m; (1,0) 4u; (1,1) 3u 1m; (2,0) 2u 2p; (2,1) 2u 2p;
  // (2,2) 1u 3p -> 15 useful, 2 masked, 7 padding.
  const ImplementationCost& varlen = m[Implementation::varlen];
  EXPECT_EQ(varlen.scores, (CellCounts{21, 3, 12, 0}));
  EXPECT_EQ(varlen.scores_computed(), 36);
  EXPECT_EQ(varlen.scores_attended(), 21);
  EXPECT_EQ(varlen.tiles_visited, 9);
  EXPECT_EQ(varlen.buffer_tokens, 8);

  // padded to 5. Row of document 1 as in varlen; row of document 0 visits the same 6 tiles
  // (24 cells): 6 useful, 1 masked (q0k1), 17 padding.
  const ImplementationCost& padded = m[Implementation::padded];
  EXPECT_EQ(padded.scores, (CellCounts{21, 3, 24, 0}));
  EXPECT_EQ(padded.tiles_visited, 12);
  EXPECT_EQ(padded.buffer_tokens, 10);

  // naive: one 5x5 tile per row. Row 0: 6 useful, 3 masked (k > q < 3), 16 padding; row 1:
  // 15 useful, 10 masked.
  const ImplementationCost& naive = m[Implementation::naive];
  EXPECT_EQ(naive.tile, (TileShape{5, 5}));
  EXPECT_EQ(naive.scores, (CellCounts{21, 13, 16, 0}));
  EXPECT_EQ(naive.tiles_visited, 2);

  // packed: one row [0 0 0 1 1 1 1 1]. (0,0) 3u 1m; (1,0) 2u 2 bleed; (1,1) 2u 1m 1b; (2,0) 4b;
  // (2,1) 2b 2u; (2,2) 3u 1m; (3,0) 4b; (3,1) 2b 2u; (3,2) 4u; (3,3) 3u 1m.
  const ImplementationCost& packed = m[Implementation::packed];
  EXPECT_EQ(packed.scores, (CellCounts{21, 4, 0, 15}));
  EXPECT_EQ(packed.scores_attended(), 8 * 9 / 2);
  EXPECT_EQ(packed.tiles_visited, 10);

  // FLOPs: 4 * head_dim = 8 per score (the backward: backward_cost_test.cpp).
  EXPECT_EQ(varlen.flops_fwd, 36 * 8);
  EXPECT_EQ(varlen.flops_useful_fwd, 21 * 8);
  EXPECT_EQ(naive.flops_fwd, 50 * 8);

  // HBM bytes, a token's row of one head is head_dim * 2 bytes = 4 bytes.
  // varlen: Q 8*4, O 8*4, LSE 8*4; keys loaded: doc 3: 2 + 3, doc 5: 2 + 4 + 5 = 16 -> K 64, V 64.
  EXPECT_EQ(varlen.hbm.q_read, 32);
  EXPECT_EQ(varlen.hbm.k_read, 64);
  EXPECT_EQ(varlen.hbm.v_read, 64);
  EXPECT_EQ(varlen.hbm.o_written, 32);
  EXPECT_EQ(varlen.hbm.lse_written, 32);
  EXPECT_EQ(varlen.hbm.total(), 224);
  // padded: Q, O, LSE 40 each; keys loaded per row 2 + 4 + 5 = 11, two rows -> K, V 88 each.
  EXPECT_EQ(padded.hbm.total(), 40 * 3 + 88 * 2);
  // packed: Q, O, LSE 32 each; keys loaded 2 + 4 + 6 + 8 = 20 -> K, V 80 each.
  EXPECT_EQ(packed.hbm.total(), 32 * 3 + 80 * 2);
  // naive: Q, K, V, O 40 each; S 50 * 4 written and read; P 50 * 2 written and read.
  EXPECT_EQ(naive.hbm.s_written, 200);
  EXPECT_EQ(naive.hbm.p_read, 100);
  EXPECT_EQ(naive.hbm.total(), 160 + 400 + 200);

  // Extra memory. Index arrays (int32): varlen 3+2+3+2+2+8 = 20 ints, padded 3+2+3+2+2+10 = 22,
  // packed 2+1+2+2+2+8 = 17. Flash adds the LSE; naive adds S (fp32) and P (bf16) for every score.
  EXPECT_EQ(varlen.extra_memory_bytes, 32 + 80);
  EXPECT_EQ(padded.extra_memory_bytes, 40 + 88);
  EXPECT_EQ(packed.extra_memory_bytes, 32 + 68);
  EXPECT_EQ(naive.extra_memory_bytes, 50 * 6 + 88);

  EXPECT_DOUBLE_EQ(packed.computed_vs_varlen, 40.0 / 36.0);
  EXPECT_DOUBLE_EQ(packed.attended_vs_varlen, 36.0 / 21.0);
  EXPECT_DOUBLE_EQ(naive.hbm_vs_varlen, 760.0 / 224.0);
  EXPECT_DOUBLE_EQ(varlen.computed_vs_varlen, 1.0);
}

TEST(CostModel, PrebuiltLayoutsGiveTheSameModel) {
  const Scenario s = load_scenario("web-mix-2048");
  const CostModel built = model_costs(s, {64, 32}), given = model_costs(s, ScenarioLayouts(s), {64, 32});
  for (Implementation i : all_implementations) {
    EXPECT_EQ(given[i].scores, built[i].scores) << implementation_name(i);
    EXPECT_EQ(given[i].tiles_visited, built[i].tiles_visited) << implementation_name(i);
    EXPECT_EQ(given[i].hbm.total(), built[i].hbm.total()) << implementation_name(i);
    EXPECT_EQ(given[i].extra_memory_bytes, built[i].extra_memory_bytes) << implementation_name(i);
    EXPECT_EQ(given[i].useful_lost, built[i].useful_lost) << implementation_name(i);
  }
}

// With a 1x1 tile nothing is computed beyond what the mask lets through (where no padding
// is laid out), so scores attended is the cell-level count of scores computed.
TEST(CostModel, AttendedIsWhatAOneByOneTileComputes) {
  const CostModel m = model_costs(two_documents(), {1, 1});
  for (Implementation i : {Implementation::packed, Implementation::varlen}) {
    EXPECT_EQ(m[i].scores_computed(), m[i].scores_attended()) << implementation_name(i);
    EXPECT_EQ(m[i].scores_attended(), model_costs(two_documents(), {2, 2})[i].scores_attended());
  }
  EXPECT_EQ(m[Implementation::packed].scores_computed(), 8 * 9 / 2);
  EXPECT_EQ(m[Implementation::varlen].scores_computed(), 3 * 4 / 2 + 5 * 6 / 2);
}

// Rows of 4 cut the 5-token document after its first token: [0 0 0 1] [1 1 1 1]. Its last 4
// tokens never see its first: 4 useful scores of varlen are lost (the output is wrong, not just slow).
TEST(CostModel, PackedRowCutsLoseUsefulScores) {
  Scenario s = two_documents();
  EXPECT_EQ(model_costs(s, {2, 2})[Implementation::packed].useful_lost, 0);
  s.row_len = 4;
  const CostModel m = model_costs(s, {2, 2});
  EXPECT_EQ(m[Implementation::packed].scores_useful(), 21 - 4);
  EXPECT_EQ(m[Implementation::packed].useful_lost, 4);
  EXPECT_EQ(m[Implementation::padded].useful_lost, 0);
  EXPECT_EQ(m[Implementation::naive].useful_lost, 0);
}

TEST(CostModel, HeadsScaleScoresAndKvHeadsScaleKeysAndValues) {
  const CostModel one = model_costs(two_documents(), {2, 2});
  const CostModel gqa = model_costs(two_documents(4, 2), {2, 2});
  for (Implementation i : all_implementations) {
    EXPECT_EQ(gqa[i].scores_computed(), 4 * one[i].scores_computed());
    EXPECT_EQ(gqa[i].hbm.q_read, 4 * one[i].hbm.q_read);
    EXPECT_EQ(gqa[i].hbm.k_read, 2 * one[i].hbm.k_read);
    EXPECT_EQ(gqa[i].hbm.v_read, 2 * one[i].hbm.v_read);
  }
}

// The numbers: 64 documents of 512 in rows of 4096.
TEST(CostModel, Uniform64x512PackedAgainstVarlen) {
  Scenario s = load_scenario("uniform-64x512");
  const std::int64_t heads = 16;
  const CostModel causal = model_costs(s);
  // Cell by cell (what the mask lets through): 8 rows of 4096*4097/2 against 64 documents of 512*513/2.
  EXPECT_EQ(causal[Implementation::packed].scores_attended(), 8 * (4096LL * 4097 / 2) * heads);
  EXPECT_EQ(causal[Implementation::varlen].scores_attended(), 64 * (512LL * 513 / 2) * heads);
  EXPECT_DOUBLE_EQ(causal[Implementation::packed].attended_vs_varlen, 4097.0 / 513.0);  // the 8 * 4096 tokens cancel
  EXPECT_NEAR(causal[Implementation::packed].attended_vs_varlen, 7.99, 0.005);
  // At 64x64 tiles the diagonal tiles are computed whole: 64*65/2 tiles per row against 8*9/2 per document.
  EXPECT_EQ(causal[Implementation::packed].scores_computed(), 8 * (64 * 65 / 2) * 4096LL * heads);
  EXPECT_EQ(causal[Implementation::varlen].scores_computed(), 64 * (8 * 9 / 2) * 4096LL * heads);
  EXPECT_NEAR(causal[Implementation::packed].computed_vs_varlen, 7.22, 0.005);
  // Equal lengths: padded is varlen with a batch dimension.
  EXPECT_EQ(causal[Implementation::padded].scores, causal[Implementation::varlen].scores);

  s.causal = false;
  const CostModel full = model_costs(s);
  EXPECT_DOUBLE_EQ(full[Implementation::packed].computed_vs_varlen, 8.0);
  EXPECT_DOUBLE_EQ(full[Implementation::packed].attended_vs_varlen, 8.0);
  EXPECT_EQ(full[Implementation::packed].scores_computed(), 8 * 4096LL * 4096 * heads);
}

TEST(CostModel, NaiveComputesEveryCellOfThePaddedMatrix) {
  const Scenario s = load_scenario("web-mix-2048");
  const CostModel m = model_costs(s);
  const std::int64_t pad = s.padded_length();
  EXPECT_EQ(m[Implementation::naive].scores_computed(), std::int64_t(s.doc_lengths.size()) * pad * pad * s.heads);
  EXPECT_EQ(m[Implementation::naive].scores_useful(), m[Implementation::varlen].scores_useful());
  EXPECT_EQ(m[Implementation::packed].scores_useful() + m[Implementation::packed].scores[CellKind::bleed],
            m[Implementation::packed].scores_attended());
}

// The fast per-query-tile count must agree with count_layout, and the tile and key
// counts with a plain walk over the visited tiles.
TEST(CostModel, CountByQueryTileEqualsCountLayout) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<int> lengths(1 + rng() % 7);
    for (int& len : lengths) len = 1 + rng() % 90;
    const bool causal = trial % 3 != 0;
    const TileShape t{1 + int(rng() % 24), 1 + int(rng() % 24)};
    const Window w = trial % 2 ? Window{}
                     : causal  ? Window{1 + int(rng() % 40), 0}
                               : Window{int(rng() % 40), int(rng() % 40)};
    const int longest = *std::max_element(lengths.begin(), lengths.end());
    for (const Layout& l : {make_padded_layout(lengths, longest + int(rng() % 9), causal, w),
                            make_packed_layout(lengths, 8 + rng() % 80, PackingPolicy::concatenate, causal, w),
                            make_packed_layout(lengths, 8 + rng() % 80, PackingPolicy::best_fit, causal, w),
                            make_varlen_layout(lengths, causal, w)}) {
      const LayoutCount fast = count_layout_by_query_tile(l, t);
      EXPECT_EQ(fast.cells, count_layout(l, t)) << layout_kind_name(l.kind) << " trial " << trial;
      const LayoutView v = l.view();
      std::int64_t tiles = 0, keys = 0;
      for (int r = 0; r < v.num_rows; ++r)
        for (int qt = 0; qt < query_tiles(v, t, r); ++qt)
          for (int kt = key_tiles_visited(v, t, r, qt).first; kt < key_tiles_visited(v, t, r, qt).end; ++kt) {
            ++tiles;
            keys += std::min(t.cols, row_extent(v, r) - kt * t.cols);
          }
      EXPECT_EQ(fast.tiles_visited, tiles);
      EXPECT_EQ(fast.key_tokens_loaded, keys);
    }
  }
}

}  // namespace
}  // namespace attnlab
