#pragma once
// One training step of a transformer over a scenario's batch: FLOPs per token of
// the matrix products and of attention per layer kind, forward and backward, in
// nanochat's convention (full squares) and as our cost model computes them
// (causal, tiled), per implementation; attention's share of the step and the
// saving when packed rows are replaced by varlen. Formulas: the top-level README.md,
// "From scores to step time"; the counts under them come from core/cost/cost_model.hpp.
#include <array>
#include <cstdint>
#include <vector>

#include "core/cost/cost_model.hpp"
#include "core/scenario/model_shape.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

// FLOPs per token (of the scenario's documents, padding not counted as a token).
struct StepFlops {
  double fwd = 0, bwd = 0;
  double step() const { return fwd + bwd; }
};

struct StepCost {
  Implementation implementation = Implementation::varlen;
  // 2 FLOPs per matrix parameter per buffer position forward, 4 backward: a padded
  // position runs through every matrix product as a token does.
  StepFlops matrix;
  std::int64_t positions = 0;  // buffer positions: the tokens and any padding
  // One layer of each kind (indexed by LayerKind). Full squares: nanochat's
  // 4 * heads * head_dim * min(window, E) per position of a row of extent E
  // forward, twice that backward (its 12 = 4 + 8). Computed: the cost model's
  // flops_fwd and the backward model's flops (flash 2.5x, naive 2x the forward)
  // at that layer's window.
  std::array<StepFlops, 2> full_squares_per_layer, computed_per_layer;
  std::array<double, 2> attended_per_layer{};  // scores the mask lets through per token, all heads (useful + bleed)
  StepFlops attention_full_squares, attention_computed;  // summed over the layers

  double step_full_squares() const { return matrix.step() + attention_full_squares.step(); }
  double step_computed() const { return matrix.step() + attention_computed.step(); }
  double attention_share_full_squares() const { return attention_full_squares.step() / step_full_squares(); }
  double attention_share_computed() const { return attention_computed.step() / step_computed(); }
};

struct TrainingStep {
  ModelShape model;
  TileShape tile;
  std::int64_t tokens = 0;  // the scenario's tokens: one micro-batch
  std::int64_t matrix_params = 0;
  std::array<int, 2> layers{};  // layers of each kind
  // nanochat's estimate_flops: 6 * matrix_params + sum over layers of
  // 12 * heads * head_dim * min(window, seq_len); no layout, no padding.
  double nanochat_flops_per_token = 0;
  std::array<StepCost, all_implementations.size()> costs;  // in all_implementations order

  const StepCost& operator[](Implementation i) const { return costs[static_cast<int>(i)]; }
  // 1 - varlen / packed: the share of the step's FLOPs that varlen saves.
  double saving_full_squares() const;
  double saving_computed() const;
};

// The window a layer of this kind attends with, FlashAttention's left size: the
// short window, or -1 (the whole row) for a long layer. nanochat passes
// (seq_len, 0) for long layers, the same as -1 for rows of at most seq_len.
int layer_window_left(const ModelShape& m, LayerKind kind);

// The scenario's attention as one layer of this kind runs it: the model's heads,
// K/V heads and head dim, and the layer's window.
Scenario layer_scenario(const Scenario& s, const ModelShape& m, LayerKind kind);

TrainingStep model_training_step(const Scenario& s, const ModelShape& m, TileShape tile = default_flash_tile);

// Sum over a layout's rows of E * min(window, E), E the row's extent: the scores
// of one head counted as nanochat counts them (every position sees min(window, E) keys).
std::int64_t full_square_scores(const Layout& layout, int window_left);

// The article's three ways to count, per head, for documents of `doc_lengths`
// concatenated into rows of `row_len` (the last row holds what is left).
struct ArticleCounts {
  int row_len = 0;
  std::int64_t rows_full_squares = 0;  // sum over rows of E^2 (16 x 2048^2 = 64M for the article's batch)
  std::int64_t docs_full_squares = 0;  // sum over documents of L^2 (64 x 512^2 = 16M)
  // The article's: rows as full squares against documents as half squares (64M against 8M).
  double article_ratio() const { return 2.0 * double(rows_full_squares) / double(docs_full_squares); }
  // The same counting on both sides (full squares, or half squares on both).
  double same_counting_ratio() const { return double(rows_full_squares) / double(docs_full_squares); }
};
ArticleCounts article_counts(const std::vector<int>& doc_lengths, int row_len);

}  // namespace attnlab
