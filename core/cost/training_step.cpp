#include "core/cost/training_step.hpp"

#include <algorithm>

#include "core/cost/backward_cost.hpp"

namespace attnlab {

namespace {

double per_token(double total, std::int64_t tokens) { return tokens > 0 ? total / double(tokens) : 0.0; }

double saving(double packed, double varlen) { return packed > 0 ? 1.0 - varlen / packed : 0.0; }

}  // namespace

double TrainingStep::saving_full_squares() const {
  return saving((*this)[Implementation::packed].step_full_squares(),
                (*this)[Implementation::varlen].step_full_squares());
}

double TrainingStep::saving_computed() const {
  return saving((*this)[Implementation::packed].step_computed(), (*this)[Implementation::varlen].step_computed());
}

int layer_window_left(const ModelShape& m, LayerKind kind) {
  return kind == LayerKind::short_window ? m.short_window : -1;
}

Scenario layer_scenario(const Scenario& s, const ModelShape& m, LayerKind kind) {
  Scenario layer = s;
  layer.heads = m.heads;
  layer.kv_heads = m.kv_heads;
  layer.head_dim = m.head_dim;
  const int left = layer_window_left(m, kind);
  layer.window = left < 0 ? Window{} : Window{left, s.causal ? 0 : left};
  return layer;
}

std::int64_t full_square_scores(const Layout& layout, int window_left) {
  std::int64_t scores = 0;
  for (int r = 0; r < layout.num_rows(); ++r) {
    const std::int64_t extent = layout.row_start[r + 1] - layout.row_start[r];
    scores += extent * (window_left < 0 ? extent : std::min<std::int64_t>(window_left, extent));
  }
  return scores;
}

TrainingStep model_training_step(const Scenario& s, const ModelShape& m, TileShape tile) {
  TrainingStep step;
  step.model = m;
  step.tile = tile;
  step.tokens = s.total_tokens();
  step.matrix_params = matrix_params(m);
  for (LayerKind kind : all_layer_kinds) step.layers[int(kind)] = layers_of_kind(m, kind);

  const double hd = double(m.heads) * m.head_dim;
  step.nanochat_flops_per_token = 6.0 * double(step.matrix_params);
  for (int layer = 0; layer < m.layers; ++layer) {
    const int w = layer_window_left(m, layer_kind(m, layer));
    step.nanochat_flops_per_token += 12.0 * hd * (w < 0 ? m.seq_len : std::min(w, m.seq_len));
  }

  for (Implementation impl : all_implementations) step.costs[int(impl)].implementation = impl;
  for (LayerKind kind : all_layer_kinds) {
    const Scenario layer = layer_scenario(s, m, kind);
    const ScenarioLayouts layouts(layer);
    const CostModel costs = model_costs(layer, layouts, tile);
    const BackwardModel backward = model_backward_costs(layer, costs, layouts);
    for (Implementation impl : all_implementations) {
      StepCost& c = step.costs[int(impl)];
      const ImplementationCost& ic = costs[impl];
      const Layout& layout = layouts.of(impl);
      const double full =
          per_token(4.0 * hd * double(full_square_scores(layout, layer_window_left(m, kind))), step.tokens);
      c.full_squares_per_layer[int(kind)] = {full, 2.0 * full};
      c.computed_per_layer[int(kind)] = {per_token(double(ic.flops_fwd), step.tokens),
                                         per_token(double(backward[int(impl)].flops), step.tokens)};
      c.attended_per_layer[int(kind)] = per_token(double(ic.scores_attended()), step.tokens);
      if (kind == LayerKind::long_context) {  // once: the buffer does not depend on the window
        c.positions = ic.buffer_tokens;
        const double positions = per_token(double(ic.buffer_tokens), step.tokens);
        c.matrix = {2.0 * double(step.matrix_params) * positions, 4.0 * double(step.matrix_params) * positions};
      }
    }
  }
  for (StepCost& c : step.costs)
    for (LayerKind kind : all_layer_kinds) {
      const int n = step.layers[int(kind)];
      c.attention_full_squares.fwd += n * c.full_squares_per_layer[int(kind)].fwd;
      c.attention_full_squares.bwd += n * c.full_squares_per_layer[int(kind)].bwd;
      c.attention_computed.fwd += n * c.computed_per_layer[int(kind)].fwd;
      c.attention_computed.bwd += n * c.computed_per_layer[int(kind)].bwd;
    }
  return step;
}

ArticleCounts article_counts(const std::vector<int>& doc_lengths, int row_len) {
  ArticleCounts c;
  c.row_len = row_len;
  std::int64_t total = 0;
  for (const int length : doc_lengths) {
    c.docs_full_squares += std::int64_t(length) * length;
    total += length;
  }
  const std::int64_t full_rows = total / row_len, rest = total % row_len;
  c.rows_full_squares = full_rows * row_len * row_len + rest * rest;
  return c;
}

}  // namespace attnlab
