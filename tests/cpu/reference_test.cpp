#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/scenario/numeric.hpp"
#include "reference/error_metrics.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab {
namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

std::vector<Layout> every_layout(const std::vector<int>& lengths, int pad_to, int row_len, bool causal) {
  return {make_padded_layout(lengths, pad_to, causal),
          make_packed_layout(lengths, row_len, PackingPolicy::concatenate, causal),
          make_packed_layout(lengths, row_len, PackingPolicy::best_fit, causal), make_varlen_layout(lengths, causal)};
}

std::int64_t total(const std::vector<int>& lengths) {
  std::int64_t n = 0;
  for (int len : lengths) n += len;
  return n;
}

// Largest difference between two outputs over everything computed; equal
// infinities (LSE of padding queries) count as no difference.
double max_difference(const ReferenceOutput& a, const ReferenceOutput& b) {
  EXPECT_EQ(a.o.size(), b.o.size());
  double worst = 0;
  const auto compare = [&](double x, double y) {
    if (x == y) return;  // also -inf == -inf
    worst = std::max(worst, std::isfinite(x) && std::isfinite(y) ? std::abs(x - y) : HUGE_VAL);
  };
  for (std::size_t i = 0; i < a.o.size(); ++i) compare(a.o[i], b.o[i]);
  for (std::size_t i = 0; i < a.lse.size(); ++i) compare(a.lse[i], b.lse[i]);
  return worst;
}

std::vector<float> as_float(const std::vector<double>& values) { return {values.begin(), values.end()}; }

TEST(Reference, TwoTokensOneDimensionMatchTheFormula) {
  // One document of two tokens, D = 1, scale 1: token 0 sees itself, token 1 both.
  AttentionInputs in;
  in.tokens = 2;
  in.heads = in.kv_heads = in.head_dim = 1;
  in.q = {0.5f, 2.0f};
  in.k = {1.0f, -1.0f};
  in.v = {3.0f, 7.0f};
  const double s10 = 2.0 * 1.0, s11 = 2.0 * -1.0;
  const double o1 = (std::exp(s10) * 3 + std::exp(s11) * 7) / (std::exp(s10) + std::exp(s11));
  const double lse1 = std::log(std::exp(s10) + std::exp(s11));
  for (const Layout& layout : every_layout({2}, 3, 4, true)) {
    for (const ReferenceOutput& out :
         {reference_materialized(layout, in, 1.0), reference_tiled(layout, in, 1.0, {1, 1})}) {
      EXPECT_DOUBLE_EQ(out.o_at(0, 0, 0), 3.0) << layout_kind_name(layout.kind);
      EXPECT_DOUBLE_EQ(out.lse_at(0, 0), 0.5);
      EXPECT_NEAR(out.o_at(1, 0, 0), o1, 1e-15);
      EXPECT_NEAR(out.lse_at(1, 0), lse1, 1e-15);
      if (layout.buffer_tokens() > 2) {  // a padding query: nothing takes part
        EXPECT_EQ(out.o_at(2, 0, 0), 0.0);
        EXPECT_EQ(out.lse_at(2, 0), minus_infinity);
      }
    }
  }
  // Not causal: token 0 sees token 1 too.
  const Layout both = make_varlen_layout({2}, false);
  const ReferenceOutput out = reference_tiled(both, in, 1.0, {2, 1});
  const double s00 = 0.5, s01 = -0.5;
  EXPECT_NEAR(out.o_at(0, 0, 0), (std::exp(s00) * 3 + std::exp(s01) * 7) / (std::exp(s00) + std::exp(s01)), 1e-15);
}

TEST(Reference, MaterializedAndTiledAgreeOnEveryLayout) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<int> lengths(1 + rng() % 5);
    for (int& len : lengths) len = 1 + rng() % 40;
    const bool causal = trial % 2 == 0;
    const int longest = *std::max_element(lengths.begin(), lengths.end());
    const AttentionInputs in = make_random_inputs(total(lengths), 2, 1, 8 + trial % 3 * 4, DType::bf16, trial);
    for (const Layout& layout : every_layout(lengths, longest + int(rng() % 4), 8 + int(rng() % 40), causal)) {
      const ReferenceOutput plain = reference_materialized(layout, in, default_scale(in.head_dim));
      for (TileShape tile : {TileShape{1, 1}, TileShape{4, 4}, TileShape{16, 8}, TileShape{5, 13}, TileShape{64, 64}}) {
        const ReferenceOutput tiled = reference_tiled(layout, in, default_scale(in.head_dim), tile);
        EXPECT_LE(max_difference(plain, tiled), 1e-12)
            << layout_kind_name(layout.kind) << " trial " << trial << " tile " << tile.rows << "x" << tile.cols;
      }
    }
  }
}

TEST(Reference, PackedEqualsVarlenWhenEachRowHoldsOneDocument) {
  const std::vector<int> lengths(5, 24);
  const AttentionInputs in = make_random_inputs(total(lengths), 3, 3, 16, DType::fp16, 5);
  const Layout packed = make_packed_layout(lengths, 24, PackingPolicy::concatenate, true);
  const Layout varlen = make_varlen_layout(lengths, true);
  const double scale = default_scale(16);
  const ErrorStats e = compare_across_layouts(packed, reference_tiled(packed, in, scale, {16, 16}), varlen,
                                              reference_tiled(varlen, in, scale, {16, 16}));
  EXPECT_EQ(e.values, total(lengths) * 3 * 16);
  EXPECT_LE(e.rel_l2, 1e-15);
}

TEST(Reference, BleedIsMeasuredWhenRowsHoldSeveralDocuments) {
  const std::vector<int> lengths = {3, 5, 7, 2, 9};
  const AttentionInputs in = make_random_inputs(total(lengths), 2, 2, 8, DType::bf16, 9);
  const Layout varlen = make_varlen_layout(lengths, true);
  const double scale = default_scale(8);
  const ReferenceOutput truth = reference_materialized(varlen, in, scale);
  for (PackingPolicy policy : {PackingPolicy::concatenate, PackingPolicy::best_fit}) {
    const Layout packed = make_packed_layout(lengths, 10, policy, true);
    const ReferenceOutput out = reference_materialized(packed, in, scale);
    const double bleed = bleed_rel_l2(packed, out, varlen, truth);
    EXPECT_GT(bleed, 0.05) << packing_policy_name(policy);
  }
}

TEST(Reference, FirstDocumentOfAPackedRowHasNoBleed) {
  // Row of 10: [doc0 x4][doc1 x6]; doc0's outputs equal the per-document ones, doc1's do not.
  const std::vector<int> lengths = {4, 6};
  const AttentionInputs in = make_random_inputs(10, 1, 1, 4, DType::bf16, 2);
  const Layout packed = make_packed_layout(lengths, 10, PackingPolicy::concatenate, true);
  const Layout varlen = make_varlen_layout(lengths, true);
  const ReferenceOutput p = reference_materialized(packed, in, 0.5), v = reference_materialized(varlen, in, 0.5);
  for (int t = 0; t < 4; ++t)
    for (int d = 0; d < 4; ++d) EXPECT_EQ(p.o_at(t, 0, d), v.o_at(t, 0, d));
  double moved = 0;
  for (int t = 4; t < 10; ++t)
    for (int d = 0; d < 4; ++d) moved += std::abs(p.o_at(t, 0, d) - v.o_at(t, 0, d));
  EXPECT_GT(moved, 1e-3);
}

TEST(Reference, PaddedEqualsVarlenOnValidPositions) {
  const std::vector<int> lengths = {1, 17, 6, 30};
  const AttentionInputs in = make_random_inputs(total(lengths), 2, 1, 8, DType::bf16, 4);
  for (bool causal : {true, false}) {
    const Layout padded = make_padded_layout(lengths, 32, causal);
    const Layout varlen = make_varlen_layout(lengths, causal);
    const ReferenceOutput p = reference_tiled(padded, in, 0.3, {8, 8});
    const ErrorStats e = compare_across_layouts(padded, p, varlen, reference_tiled(varlen, in, 0.3, {8, 8}));
    EXPECT_EQ(e.values, total(lengths) * 2 * 8);
    EXPECT_LE(e.rel_l2, 1e-15);
    // Padding queries: O = 0 and LSE = -inf.
    EXPECT_EQ(p.o_at(5, 1, 3), 0.0);
    EXPECT_EQ(p.lse_at(5, 1), minus_infinity);
  }
}

TEST(Reference, GroupedQueryHeadsShareTheirKvHead) {
  // 4 query heads over 2 kv heads equals 4 heads over 4 kv heads with each kv head duplicated.
  const std::vector<int> lengths = {7, 12};
  const AttentionInputs grouped = make_random_inputs(19, 4, 2, 8, DType::bf16, 8);
  AttentionInputs expanded = grouped;
  expanded.kv_heads = 4;
  expanded.k.clear();
  expanded.v.clear();
  for (int t = 0; t < 19; ++t)
    for (int h = 0; h < 4; ++h) {
      expanded.k.insert(expanded.k.end(), grouped.k_at(t, h / 2), grouped.k_at(t, h / 2) + 8);
      expanded.v.insert(expanded.v.end(), grouped.v_at(t, h / 2), grouped.v_at(t, h / 2) + 8);
    }
  const Layout varlen = make_varlen_layout(lengths, true);
  const ReferenceOutput a = reference_tiled(varlen, grouped, 0.35, {4, 4});
  const ReferenceOutput b = reference_tiled(varlen, expanded, 0.35, {4, 4});
  EXPECT_EQ(max_difference(a, b), 0.0);
  // And the heads do differ from one another (the test would be empty otherwise).
  EXPECT_NE(a.o_at(3, 0, 0), a.o_at(3, 2, 0));
}

TEST(Reference, ComputesOnlyTheChosenRowsAndHeads) {
  const std::vector<int> lengths = {5, 9, 3, 8};
  const AttentionInputs in = make_random_inputs(25, 3, 3, 4, DType::bf16, 12);
  const Layout padded = make_padded_layout(lengths, 9, true);
  const ReferenceOutput all = reference_materialized(padded, in, 0.5);
  ReferenceOptions some;
  some.rows = {2, 0};
  some.heads = {1};
  some.threads = 1;
  const ReferenceOutput part = reference_tiled(padded, in, 0.5, {4, 4}, some);
  EXPECT_EQ(part.computed_rows, (std::vector<int>{0, 2}));
  EXPECT_EQ(part.computed_heads, (std::vector<int>{1}));
  EXPECT_NEAR(part.o_at(9 * 2 + 1, 1, 2), all.o_at(9 * 2 + 1, 1, 2), 1e-12);
  EXPECT_TRUE(std::isnan(part.o_at(9 * 1 + 1, 1, 2)));  // row 1 not computed
  EXPECT_TRUE(std::isnan(part.o_at(1, 0, 0)));          // head 0 not computed
  // A float copy of the full output is compared on the chosen part only.
  EXPECT_EQ(compare_to_reference(padded, part, as_float(all.o)).values, (5 + 3) * 1 * 4);  // tokens x heads x D
  EXPECT_THROW(reference_tiled(padded, in, 0.5, {4, 4}, ReferenceOptions{{4}, {}, 1}), std::out_of_range);
}

TEST(Reference, ErrorMetricsMeasureDistanceOnValidPositionsOnly) {
  const std::vector<int> lengths = {3, 6};
  const AttentionInputs in = make_random_inputs(9, 2, 2, 4, DType::bf16, 1);
  const Layout padded = make_padded_layout(lengths, 6, true);
  const ReferenceOutput ref = reference_materialized(padded, in, 0.5);
  std::vector<float> o = as_float(ref.o), lse = as_float(ref.lse);
  const ErrorStats exact = compare_to_reference(padded, ref, o, lse);
  EXPECT_LE(exact.rel_l2, 1e-7);  // only the float rounding
  EXPECT_EQ(exact.values, 9 * 2 * 4);
  ASSERT_TRUE(exact.lse_max_abs.has_value());
  EXPECT_LE(*exact.lse_max_abs, 1e-6);
  // Padding positions hold garbage in a kernel's output: ignored.
  for (int d = 0; d < 4; ++d) o[(3 * 2 + 1) * 4 + d] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_LE(compare_to_reference(padded, ref, o).rel_l2, 1e-7);
  // One value off by 0.25: max abs says so, and rel L2 is 0.25 / ||ref||.
  o[(7 * 2 + 0) * 4 + 2] += 0.25f;
  double norm = 0;
  for (int r = 0; r < 2; ++r)
    for (int p = 6 * r; p < 6 * r + lengths[r]; ++p)
      for (int i = 0; i < 8; ++i) norm += ref.o[p * 8 + i] * ref.o[p * 8 + i];
  const ErrorStats off = compare_to_reference(padded, ref, o);
  EXPECT_NEAR(off.max_abs, 0.25, 1e-6);
  EXPECT_NEAR(off.rel_l2, 0.25 / std::sqrt(norm), 1e-6);
  EXPECT_FALSE(off.lse_max_abs.has_value());
  // An unwritten (NaN) output on a valid position is infinitely far.
  o[(1 * 2 + 1) * 4 + 0] = std::numeric_limits<float>::quiet_NaN();
  lse[0] = std::numeric_limits<float>::quiet_NaN();
  const ErrorStats broken = compare_to_reference(padded, ref, o, lse);
  EXPECT_EQ(broken.max_abs, HUGE_VAL);
  EXPECT_EQ(broken.rel_l2, HUGE_VAL);
  EXPECT_EQ(broken.lse_max_abs, HUGE_VAL);
  EXPECT_THROW(compare_to_reference(padded, ref, std::vector<float>(5)), std::invalid_argument);
}

TEST(Reference, RandomInputsAreSeededInRangeAndRoundedToTheDtype) {
  for (DType dtype : {DType::bf16, DType::fp16}) {
    const AttentionInputs a = make_random_inputs(10, 4, 2, 8, dtype, 77);
    EXPECT_EQ(a.q.size(), 10u * 4 * 8);
    EXPECT_EQ(a.k.size(), 10u * 2 * 8);
    EXPECT_EQ(a.q, make_random_inputs(10, 4, 2, 8, dtype, 77).q);
    EXPECT_NE(a.q, make_random_inputs(10, 4, 2, 8, dtype, 78).q);
    for (const auto* values : {&a.q, &a.k, &a.v})
      for (float x : *values) {
        ASSERT_GE(x, -1.0f);
        ASSERT_LE(x, 1.0f);
        ASSERT_EQ(round_to_dtype(x, dtype), x);
      }
  }
  EXPECT_THROW(make_random_inputs(4, 3, 2, 8, DType::bf16, 1), std::invalid_argument);
}

TEST(Reference, GatherPutsCanonicalTokensAtLayoutPositions) {
  const AttentionInputs in = make_random_inputs(5, 2, 1, 3, DType::bf16, 6);
  const Layout packed = make_packed_layout({2, 3}, 4, PackingPolicy::concatenate, true);  // [0 0 1 1] [1 - - -]
  const AttentionInputs buffer = gather_inputs(packed, in, -9.0f);
  ASSERT_EQ(buffer.tokens, 8);
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 3; ++d) EXPECT_EQ(buffer.q_at(4, h)[d], in.q_at(4, h)[d]);
  EXPECT_EQ(buffer.v_at(3, 0)[1], in.v_at(3, 0)[1]);
  EXPECT_EQ(buffer.k_at(5, 0)[0], -9.0f);
  EXPECT_EQ(buffer.q_at(7, 1)[2], -9.0f);
}

}  // namespace
}  // namespace attnlab
