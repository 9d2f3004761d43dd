#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/scenario/numeric.hpp"
#include "reference/error_metrics.hpp"
#include "reference/reference_backward.hpp"

namespace attnlab {
namespace {

std::int64_t total(const std::vector<int>& lengths) {
  std::int64_t n = 0;
  for (int len : lengths) n += len;
  return n;
}

// Padded, packed (concatenated: bleed, documents cut at row ends; best fit: cropped) and varlen.
std::vector<Layout> layouts_of(const std::vector<int>& lengths, int pad_to, int row_len, bool causal,
                               Window window = {}) {
  return {make_padded_layout(lengths, pad_to, causal, window),
          make_packed_layout(lengths, row_len, PackingPolicy::concatenate, causal, window),
          make_packed_layout(lengths, row_len, PackingPolicy::best_fit, causal, window),
          make_varlen_layout(lengths, causal, window)};
}

std::string name_of(const Layout& layout) {
  return std::string(layout_kind_name(layout.kind)) + (layout.causal ? " causal" : " not causal") + " window (" +
         std::to_string(layout.window.left) + ", " + std::to_string(layout.window.right) + ")";
}

// Largest difference between two gradients over everything both computed.
double max_difference(const ReferenceGradients& a, const ReferenceGradients& b) {
  EXPECT_EQ(a.dq.size(), b.dq.size());
  EXPECT_EQ(a.dk.size(), b.dk.size());
  double worst = 0;
  for (const auto& [x, y] : {std::pair{&a.dq, &b.dq}, std::pair{&a.dk, &b.dk}, std::pair{&a.dv, &b.dv}})
    for (std::size_t i = 0; i < x->size(); ++i) {
      const double d = std::abs((*x)[i] - (*y)[i]);
      worst = std::max(worst, std::isnan(d) ? HUGE_VAL : d);
    }
  return worst;
}

std::vector<float> as_float(const std::vector<double>& values) { return {values.begin(), values.end()}; }

// L = Σ dO∘O over every position the layout holds a token at, every head (the loss
// whose gradient the backward pass computes), from the fp64 forward reference.
double loss(const Layout& layout, const AttentionInputs& in, const std::vector<float>& grad_output, double scale) {
  const ReferenceOutput out = reference_materialized(layout, in, scale, ReferenceOptions{{}, {}, 1});
  double l = 0;
  for (std::int64_t p = 0; p < layout.buffer_tokens(); ++p) {
    const std::int64_t t = layout.token_source[p];
    if (t < 0) continue;
    for (int h = 0; h < in.heads; ++h)
      for (int d = 0; d < in.head_dim; ++d) l += grad_output[(t * in.heads + h) * in.head_dim + d] * out.o_at(p, h, d);
  }
  return l;
}

// Central difference of the loss in one input value. The step is a power of two, so
// x ± step is exact in float for our dtype-rounded inputs in [-1, 1).
double finite_difference(const Layout& layout, AttentionInputs in, std::vector<float> AttentionInputs::*tensor,
                         std::size_t index, const std::vector<float>& grad_output, double scale) {
  constexpr float step = 0x1p-12f;
  const float x = (in.*tensor)[index];
  (in.*tensor)[index] = x + step;
  const double up = loss(layout, in, grad_output, scale);
  (in.*tensor)[index] = x - step;
  const double down = loss(layout, in, grad_output, scale);
  return (up - down) / (2.0 * step);
}

// Position of each canonical token in the layout, -1 where it was cropped.
std::vector<std::int64_t> positions_of(const Layout& layout, std::int64_t tokens) {
  std::vector<std::int64_t> pos(tokens, -1);
  for (std::int64_t p = 0; p < layout.buffer_tokens(); ++p)
    if (layout.token_source[p] >= 0) pos[layout.token_source[p]] = p;
  return pos;
}

TEST(ReferenceBackward, MatchesFiniteDifferencesOfTheLossOnTinyCases) {
  const std::vector<int> lengths = {1, 3, 5};
  const double scale = 0.6;
  // Causal and not, each with no window and with a sliding window.
  const std::pair<bool, Window> masks[] = {{true, {}}, {false, {}}, {true, {2, 0}}, {false, {1, 2}}};
  for (int head_dim : {4, 8})
    for (const auto& [causal, window] : masks) {
      // Two query heads share one kv head: dK and dV must sum over both.
      const AttentionInputs in = make_random_inputs(total(lengths), 2, 1, head_dim, DType::bf16, 30 + head_dim);
      const std::vector<float> grad_output = make_random_grad_output(in, 7);
      for (const Layout& layout : layouts_of(lengths, 6, 4, causal, window)) {
        const ReferenceGradients plain = reference_backward_materialized(layout, in, grad_output, scale);
        const ReferenceOutput forward = reference_tiled(layout, in, scale, {2, 3});
        const ReferenceGradients tiled = reference_backward_tiled(layout, in, forward, grad_output, scale, {2, 3});
        const std::vector<std::int64_t> pos = positions_of(layout, in.tokens);
        for (std::int64_t t = 0; t < in.tokens; ++t) {
          if (pos[t] < 0) continue;  // cropped by best-fit packing: not in the layout at all
          for (int d = 0; d < head_dim; ++d) {
            for (int h = 0; h < in.heads; ++h) {
              const double fd =
                  finite_difference(layout, in, &AttentionInputs::q, (t * 2 + h) * head_dim + d, grad_output, scale);
              EXPECT_NEAR(plain.dq_at(pos[t], h, d), fd, 1e-6) << name_of(layout) << " dQ token " << t;
              EXPECT_NEAR(tiled.dq_at(pos[t], h, d), fd, 1e-6) << name_of(layout) << " dQ token " << t;
            }
            const double fd_k =
                finite_difference(layout, in, &AttentionInputs::k, t * head_dim + d, grad_output, scale);
            const double fd_v =
                finite_difference(layout, in, &AttentionInputs::v, t * head_dim + d, grad_output, scale);
            EXPECT_NEAR(plain.dk_at(pos[t], 0, d), fd_k, 1e-6) << name_of(layout) << " dK token " << t;
            EXPECT_NEAR(tiled.dk_at(pos[t], 0, d), fd_k, 1e-6) << name_of(layout) << " dK token " << t;
            EXPECT_NEAR(plain.dv_at(pos[t], 0, d), fd_v, 1e-6) << name_of(layout) << " dV token " << t;
            EXPECT_NEAR(tiled.dv_at(pos[t], 0, d), fd_v, 1e-6) << name_of(layout) << " dV token " << t;
          }
        }
      }
    }
}

TEST(ReferenceBackward, MaterializedAndTiledAgreeOnEveryLayout) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<int> lengths(1 + rng() % 5);
    for (int& len : lengths) len = 1 + rng() % 40;
    const bool causal = trial % 2 == 0;
    const Window window = trial % 4 < 2 ? Window{}
                          : causal      ? Window{1 + int(rng() % 20), 0}
                                        : Window{int(rng() % 20), int(rng() % 20)};
    const int longest = *std::max_element(lengths.begin(), lengths.end());
    const int kv_heads = trial % 3 == 0 ? 2 : 1;
    const AttentionInputs in = make_random_inputs(total(lengths), 4, kv_heads, 8 + trial % 3 * 4, DType::fp16, trial);
    const std::vector<float> grad_output = make_random_grad_output(in, 100 + trial);
    const double scale = default_scale(in.head_dim);
    for (const Layout& layout : layouts_of(lengths, longest + int(rng() % 4), 8 + int(rng() % 40), causal, window)) {
      const ReferenceGradients plain = reference_backward_materialized(layout, in, grad_output, scale);
      for (TileShape tile : {TileShape{1, 1}, TileShape{4, 4}, TileShape{16, 8}, TileShape{5, 13}, TileShape{64, 64}}) {
        const ReferenceOutput forward = reference_tiled(layout, in, scale, tile);
        const ReferenceGradients tiled = reference_backward_tiled(layout, in, forward, grad_output, scale, tile);
        EXPECT_LE(max_difference(plain, tiled), 1e-12)
            << name_of(layout) << " trial " << trial << " tile " << tile.rows << "x" << tile.cols;
      }
    }
  }
}

TEST(ReferenceBackward, OneTokenPassesDoStraightToDvAndNothingToDqDk) {
  // A lone token attends only itself: P = 1, O = V, so dV = dO and dS = P·(dP − D) = 0.
  const AttentionInputs in = make_random_inputs(1, 2, 2, 4, DType::bf16, 3);
  const std::vector<float> grad_output = make_random_grad_output(in, 4);
  const Layout varlen = make_varlen_layout({1}, true);
  const ReferenceGradients g = reference_backward_materialized(varlen, in, grad_output, 0.5);
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 4; ++d) {
      EXPECT_EQ(g.dv_at(0, h, d), grad_output[h * 4 + d]);
      EXPECT_EQ(g.dq_at(0, h, d), 0.0);
      EXPECT_EQ(g.dk_at(0, h, d), 0.0);
    }
}

TEST(ReferenceBackward, PaddingPositionsGetZeroGradients) {
  const std::vector<int> lengths = {2, 5};
  const AttentionInputs in = make_random_inputs(7, 1, 1, 4, DType::bf16, 5);
  const std::vector<float> grad_output = make_random_grad_output(in, 6);
  const Layout padded = make_padded_layout(lengths, 5, true);  // row 0: [t0 t1 - - -]
  const ReferenceOutput forward = reference_materialized(padded, in, 0.5);
  for (const ReferenceGradients& g : {reference_backward_materialized(padded, in, grad_output, 0.5),
                                      reference_backward_tiled(padded, in, forward, grad_output, 0.5, {2, 2})})
    for (int pos = 2; pos < 5; ++pos)
      for (int d = 0; d < 4; ++d) {
        EXPECT_EQ(g.dq_at(pos, 0, d), 0.0);
        EXPECT_EQ(g.dk_at(pos, 0, d), 0.0);
        EXPECT_EQ(g.dv_at(pos, 0, d), 0.0);
      }
}

TEST(ReferenceBackward, PaddedEqualsVarlenOnValidPositions) {
  const std::vector<int> lengths = {1, 17, 6, 30};
  const AttentionInputs in = make_random_inputs(total(lengths), 4, 2, 8, DType::bf16, 4);
  const std::vector<float> grad_output = make_random_grad_output(in, 40);
  const Layout padded = make_padded_layout(lengths, 32, true), varlen = make_varlen_layout(lengths, true);
  const ReferenceGradients p = reference_backward_materialized(padded, in, grad_output, 0.3);
  const ReferenceGradients v = reference_backward_materialized(varlen, in, grad_output, 0.3);
  // dK at the last token of document 3 (varlen position 1 + 17 + 6 + 29, padded 3 * 32 + 29).
  for (int d = 0; d < 8; ++d) {
    EXPECT_NEAR(p.dk_at(3 * 32 + 29, 1, d), v.dk_at(53, 1, d), 1e-15);
    EXPECT_NEAR(p.dq_at(32 + 16, 3, d), v.dq_at(17, 3, d), 1e-15);
  }
}

TEST(ReferenceBackward, SamplesWholeKvGroupsAndChosenRows) {
  const std::vector<int> lengths = {5, 9, 3, 8};
  const AttentionInputs in = make_random_inputs(25, 6, 2, 4, DType::bf16, 12);  // groups {0,1,2}, {3,4,5}
  const std::vector<float> grad_output = make_random_grad_output(in, 13);
  const Layout padded = make_padded_layout(lengths, 9, true);
  const ReferenceGradients all = reference_backward_materialized(padded, in, grad_output, 0.5);

  EXPECT_EQ(whole_kv_groups({4}, 6, 2), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(whole_kv_groups({5, 0}, 6, 2), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(whole_kv_groups({}, 6, 2).empty());
  ReferenceOptions some{{2, 0}, whole_kv_groups({4}, 6, 2), 1};
  const ReferenceOutput forward = reference_tiled(padded, in, 0.5, {4, 4}, some);
  const ReferenceGradients part = reference_backward_tiled(padded, in, forward, grad_output, 0.5, {4, 4}, some);
  EXPECT_EQ(part.computed_rows, (std::vector<int>{0, 2}));
  EXPECT_EQ(part.computed_heads, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(part.computed_kv_heads, (std::vector<int>{1}));
  EXPECT_NEAR(part.dk_at(9 * 2 + 1, 1, 2), all.dk_at(9 * 2 + 1, 1, 2), 1e-12);
  EXPECT_NEAR(part.dq_at(9 * 2 + 2, 4, 0), all.dq_at(9 * 2 + 2, 4, 0), 1e-12);
  EXPECT_TRUE(std::isnan(part.dq_at(9 + 1, 4, 0)));  // row 1 not computed
  EXPECT_TRUE(std::isnan(part.dk_at(1, 0, 0)));      // kv head 0 not computed
  // The full gradients as floats, compared on the chosen part only.
  const GradientErrorStats e =
      compare_gradients_to_reference(padded, part, as_float(all.dq), as_float(all.dk), as_float(all.dv));
  EXPECT_EQ(e.dq.values, (5 + 3) * 3 * 4);  // tokens x heads x D
  EXPECT_EQ(e.dk.values, (5 + 3) * 1 * 4);  // tokens x kv heads x D
  EXPECT_LE(e.worst().rel_l2, 1e-7);

  // Part of a group cannot give dK and dV; a forward without the chosen part cannot give the tiled backward.
  EXPECT_THROW(reference_backward_materialized(padded, in, grad_output, 0.5, ReferenceOptions{{}, {4}, 1}),
               std::invalid_argument);
  EXPECT_THROW(
      reference_backward_tiled(padded, in, forward, grad_output, 0.5, {4, 4}, ReferenceOptions{{1}, {3, 4, 5}, 1}),
      std::invalid_argument);
  EXPECT_THROW(reference_backward_tiled(padded, in, forward, grad_output, 0.5, {4, 4}), std::invalid_argument);
  EXPECT_THROW(reference_backward_materialized(padded, in, std::vector<float>(7), 0.5), std::invalid_argument);
}

TEST(ReferenceBackward, GradientErrorsAreMeasuredEachAndTheWorstNamed) {
  const std::vector<int> lengths = {3, 6};
  const AttentionInputs in = make_random_inputs(9, 2, 1, 4, DType::bf16, 1);
  const std::vector<float> grad_output = make_random_grad_output(in, 2);
  const Layout padded = make_padded_layout(lengths, 6, true);
  const ReferenceGradients ref = reference_backward_materialized(padded, in, grad_output, 0.5);
  std::vector<float> dq = as_float(ref.dq), dk = as_float(ref.dk), dv = as_float(ref.dv);
  const GradientErrorStats exact = compare_gradients_to_reference(padded, ref, dq, dk, dv);
  EXPECT_LE(exact.worst().rel_l2, 1e-7);
  EXPECT_EQ(exact.dq.values, 9 * 2 * 4);
  EXPECT_EQ(exact.dv.values, 9 * 1 * 4);
  // Garbage on padding positions is ignored.
  for (int d = 0; d < 4; ++d) dk[4 * 4 + d] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_LE(compare_gradients_to_reference(padded, ref, dq, dk, dv).worst().rel_l2, 1e-7);
  // One dK value off by 0.25: dK is the worst, and its rel L2 is 0.25 / ||dK||.
  dk[7 * 4 + 1] += 0.25f;
  double norm = 0;
  for (int p : {0, 1, 2, 6, 7, 8, 9, 10, 11})
    for (int d = 0; d < 4; ++d) norm += ref.dk_at(p, 0, d) * ref.dk_at(p, 0, d);
  const GradientErrorStats off = compare_gradients_to_reference(padded, ref, dq, dk, dv);
  EXPECT_STREQ(off.worst_name(), "dK");
  EXPECT_NEAR(off.dk.max_abs, 0.25, 1e-6);
  EXPECT_NEAR(off.worst().rel_l2, 0.25 / std::sqrt(norm), 1e-6);
  EXPECT_LE(off.dq.rel_l2, 1e-7);
  // An unwritten dV is infinitely far.
  dv[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_STREQ(compare_gradients_to_reference(padded, ref, dq, dk, dv).worst_name(), "dV");
  EXPECT_EQ(compare_gradients_to_reference(padded, ref, dq, dk, dv).worst().rel_l2, HUGE_VAL);
  EXPECT_THROW(compare_gradients_to_reference(padded, ref, dq, dq, dv), std::invalid_argument);
}

TEST(ReferenceBackward, RandomGradOutputIsSeededRoundedAndGathered) {
  const AttentionInputs in = make_random_inputs(5, 4, 2, 3, DType::fp16, 9);
  const std::vector<float> g = make_random_grad_output(in, 10);
  ASSERT_EQ(g.size(), 5u * 4 * 3);
  EXPECT_EQ(g, make_random_grad_output(in, 10));
  EXPECT_NE(g, make_random_grad_output(in, 11));
  for (float x : g) {
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    ASSERT_EQ(round_to_dtype(x, DType::fp16), x);
  }
  const Layout packed = make_packed_layout({2, 3}, 4, PackingPolicy::concatenate, true);  // [0 1 2 3] [4 - - -]
  const std::vector<float> buffer = gather_tokens(packed, g, 12, -9.0f);
  ASSERT_EQ(buffer.size(), 8u * 12);
  EXPECT_EQ(buffer[4 * 12 + 7], g[4 * 12 + 7]);
  EXPECT_EQ(buffer[5 * 12], -9.0f);
  EXPECT_THROW(gather_tokens(packed, std::span<const float>(g).first(12 * 4), 12), std::out_of_range);
}

}  // namespace
}  // namespace attnlab
