#include "reference/online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

}  // namespace

RowHeadOperands load_row_head(const Layout& layout, const AttentionInputs& canonical, int row, int head) {
  RowHeadOperands ops;
  ops.row = row;
  ops.head = head;
  ops.head_dim = canonical.head_dim;
  const int first = layout.row_start[row];
  ops.extent = layout.row_start[row + 1] - first;
  const std::size_t size = static_cast<std::size_t>(ops.extent) * ops.head_dim;
  ops.q.assign(size, 0.0);
  ops.k.assign(size, 0.0);
  ops.v.assign(size, 0.0);
  const int kv_head = canonical.kv_head_of(head);
  for (int pos = 0; pos < ops.extent; ++pos) {
    const std::int64_t t = layout.token_source[first + pos];
    if (t < 0) continue;
    const std::size_t at = static_cast<std::size_t>(pos) * ops.head_dim;
    std::copy_n(canonical.q_at(t, head), ops.head_dim, ops.q.begin() + at);
    std::copy_n(canonical.k_at(t, kv_head), ops.head_dim, ops.k.begin() + at);
    std::copy_n(canonical.v_at(t, kv_head), ops.head_dim, ops.v.begin() + at);
  }
  return ops;
}

QueryTileState start_query_tile(const LayoutView& view, TileShape tile, int row, int query_tile, int head_dim) {
  QueryTileState s;
  s.row = row;
  s.query_tile = query_tile;
  s.first_query = query_tile * tile.rows;
  s.key_tiles = key_tiles_visited(view, tile, row, query_tile);
  s.queries = std::min(tile.rows, row_extent(view, row) - s.first_query);
  s.head_dim = head_dim;
  s.running_max.assign(s.queries, minus_infinity);
  s.running_sum.assign(s.queries, 0.0);
  s.last_rescale.assign(s.queries, 1.0);
  s.accumulator.assign(static_cast<std::size_t>(s.queries) * head_dim, 0.0);
  return s;
}

void visit_next_key_tile(const LayoutView& view, TileShape tile, const RowHeadOperands& ops, double scale,
                         QueryTileState& s) {
  const int first_key = (s.key_tiles.first + s.key_tiles_done) * tile.cols;
  const int end_key = std::min(first_key + tile.cols, ops.extent);
  const int D = s.head_dim;
  std::vector<double> scores(end_key - first_key);
  for (int i = 0; i < s.queries; ++i) {
    const int q = s.first_query + i;
    // Scores of this key tile; cells that do not take part are -inf (weight 0).
    double tile_max = minus_infinity;
    for (int k = first_key; k < end_key; ++k) {
      double& score = scores[k - first_key];
      score = attended(cell_kind(view, s.row, q, k)) ? ops.score(q, k, scale) : minus_infinity;
      tile_max = std::max(tile_max, score);
    }
    const double new_max = std::max(s.running_max[i], tile_max);
    // Nothing has taken part yet: keep the empty state as it is.
    const double rescale = new_max == minus_infinity ? 1.0 : std::exp(s.running_max[i] - new_max);
    double* acc = s.accumulator.data() + static_cast<std::size_t>(i) * D;
    for (int d = 0; d < D; ++d) acc[d] *= rescale;
    double sum = s.running_sum[i] * rescale;
    for (int k = first_key; k < end_key; ++k) {
      const double score = scores[k - first_key];
      if (score == minus_infinity) continue;
      const double p = std::exp(score - new_max);
      sum += p;
      const double* v = ops.v_at(k);
      for (int d = 0; d < D; ++d) acc[d] += p * v[d];
    }
    s.running_max[i] = new_max;
    s.running_sum[i] = sum;
    s.last_rescale[i] = rescale;
  }
  ++s.key_tiles_done;
}

double normalized_output(const QueryTileState& s, int i, int d) {
  const double l = s.running_sum[i];
  return l > 0 ? s.accumulator[static_cast<std::size_t>(i) * s.head_dim + d] / l : 0.0;
}

double log_sum_exp(const QueryTileState& s, int i) {
  const double l = s.running_sum[i];
  return l > 0 ? s.running_max[i] + std::log(l) : minus_infinity;
}

}  // namespace attnlab
