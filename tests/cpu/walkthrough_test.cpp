#include <gtest/gtest.h>

#include <cmath>

#include "reference/flash_walkthrough.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab {
namespace {

// Runs every query tile of every row to the end and checks it against reference_tiled bit for bit.
void expect_walkthrough_matches_reference(const Layout& layout, const AttentionInputs& in, TileShape tile, int head) {
  const double scale = default_scale(in.head_dim);
  const ReferenceOutput ref = reference_tiled(layout, in, scale, tile);
  const LayoutView view = layout.view();
  for (int r = 0; r < layout.num_rows(); ++r)
    for (int qt = 0; qt < query_tiles(view, tile, r); ++qt) {
      FlashWalkthrough walk(layout, in, scale, tile, r, qt, head);
      ASSERT_EQ(walk.key_tiles_total(), key_tiles_visited(view, tile, r, qt).count());
      while (!walk.finished()) walk.step();
      for (int i = 0; i < walk.state().queries; ++i) {
        const std::int64_t pos = layout.row_start[r] + qt * tile.rows + i;
        EXPECT_EQ(walk.lse(i), ref.lse_at(pos, head));
        for (int d = 0; d < in.head_dim; ++d) ASSERT_EQ(walk.partial_output(i, d), ref.o_at(pos, head, d));
      }
    }
}

TEST(Walkthrough, FinalStateEqualsReferenceTiledOnEveryLayout) {
  const std::vector<int> lengths = {5, 13, 1, 20};
  const AttentionInputs in = make_random_inputs(39, 2, 1, 8, DType::bf16, 21);
  for (bool causal : {true, false}) {
    expect_walkthrough_matches_reference(make_padded_layout(lengths, 24, causal), in, {8, 4}, 1);
    expect_walkthrough_matches_reference(make_packed_layout(lengths, 16, PackingPolicy::concatenate, causal), in,
                                         {4, 8}, 0);
    expect_walkthrough_matches_reference(make_varlen_layout(lengths, causal), in, {3, 5}, 1);
  }
}

TEST(Walkthrough, StepsLoadKeyTilesInOrderAndRescaleTheAccumulator) {
  const AttentionInputs in = make_random_inputs(64, 1, 1, 16, DType::fp16, 3);
  const Layout layout = make_varlen_layout({64}, true);
  const TileShape tile{16, 16};
  FlashWalkthrough walk(layout, in, 0.25, tile, 0, 2);  // queries 32..47 visit key tiles 0, 1, 2
  ASSERT_EQ(walk.key_tiles_total(), 3);
  EXPECT_EQ(walk.loaded_key_tile(), -1);
  EXPECT_EQ(walk.state().queries, 16);
  std::vector<double> previous_max = walk.state().running_max;
  for (int step = 0; step < 3; ++step) {
    walk.step();
    EXPECT_EQ(walk.loaded_key_tile(), step);
    EXPECT_EQ(walk.loaded_key_first(), 16 * step);
    EXPECT_EQ(walk.loaded_key_end(), 16 * step + 16);
    for (int i = 0; i < 16; ++i) {
      const double m = walk.state().running_max[i];
      EXPECT_GE(m, previous_max[i]);
      // The factor applied is exp(m_old - m_new): 0 on the first tile (nothing to keep), at most 1 after.
      EXPECT_NEAR(walk.state().last_rescale[i], std::exp(previous_max[i] - m), 1e-15);
      EXPECT_GT(walk.state().running_sum[i], 0.0);
    }
    previous_max = walk.state().running_max;
  }
  EXPECT_TRUE(walk.finished());
  walk.step();  // no further tiles
  EXPECT_EQ(walk.steps_done(), 3);
  walk.restart();
  EXPECT_EQ(walk.steps_done(), 0);
  EXPECT_EQ(walk.state().running_sum[0], 0.0);
}

TEST(Walkthrough, CountsBytesMovedAgainstNaive) {
  // Row of 40 keys, tile 16x16, D = 8, bf16 (2 bytes): query tile 1 holds queries 16..31.
  const AttentionInputs in = make_random_inputs(40, 1, 1, 8, DType::bf16, 5);
  const Layout layout = make_varlen_layout({40}, false);
  FlashWalkthrough walk(layout, in, 0.3, {16, 16}, 0, 1);
  const std::int64_t q_tile = 16 * 8 * 2, kv_full_tile = 2 * 16 * 8 * 2, kv_last_tile = 2 * 8 * 8 * 2;
  EXPECT_EQ(walk.flash_bytes(), q_tile);
  walk.step();
  EXPECT_EQ(walk.flash_bytes(), q_tile + kv_full_tile);
  walk.step();
  walk.step();  // the last key tile holds 8 keys
  ASSERT_TRUE(walk.finished());
  const std::int64_t o_and_lse = 16 * 8 * 2 + 16 * 4;
  EXPECT_EQ(walk.flash_bytes(), q_tile + 2 * kv_full_tile + kv_last_tile + o_and_lse);
  // Naive: Q, K, V, O plus S (fp32) and P (bf16) written and read for 16 x 40 scores.
  const std::int64_t naive = (16 + 40 + 40 + 16) * 8 * 2 + 2 * 16 * 40 * 4 + 2 * 16 * 40 * 2;
  EXPECT_EQ(walk.naive_bytes(), naive);
  EXPECT_LT(walk.flash_bytes(), walk.naive_bytes());
}

TEST(Walkthrough, PaddingQueriesStayEmpty) {
  const AttentionInputs in = make_random_inputs(3, 1, 1, 4, DType::bf16, 1);
  const Layout padded = make_padded_layout({3}, 8, true);
  FlashWalkthrough walk(padded, in, 0.5, {8, 8}, 0, 0);
  walk.step();
  EXPECT_GT(walk.state().running_sum[2], 0.0);
  EXPECT_EQ(walk.state().running_sum[5], 0.0);
  EXPECT_EQ(walk.partial_output(5, 0), 0.0);
  EXPECT_EQ(walk.lse(5), -INFINITY);
}

TEST(Walkthrough, RejectsTilesRowsAndHeadsThatDoNotExist) {
  const AttentionInputs in = make_random_inputs(10, 2, 2, 4, DType::bf16, 1);
  const Layout layout = make_varlen_layout({10}, true);
  EXPECT_THROW(FlashWalkthrough(layout, in, 0.5, {4, 4}, 1, 0), std::out_of_range);
  EXPECT_THROW(FlashWalkthrough(layout, in, 0.5, {4, 4}, 0, 3), std::out_of_range);
  EXPECT_THROW(FlashWalkthrough(layout, in, 0.5, {4, 4}, 0, 0, 2), std::out_of_range);
  EXPECT_NO_THROW(FlashWalkthrough(layout, in, 0.5, {4, 4}, 0, 2, 1));
}

}  // namespace
}  // namespace attnlab
