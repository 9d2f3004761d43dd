#pragma once
// The flash algorithm's arithmetic, in fp64, for one (row, head) of a layout:
// a query tile keeps a running max m, a running sum l and an unnormalised output
// accumulator per query; each visited key tile raises m, rescales l and the
// accumulator by exp(m_old - m_new), and adds its own exp(s - m) terms. At the end
// O = acc / l and LSE = m + log(l). reference_tiled and the GUI's walkthrough both
// run exactly these functions.
#include <vector>

#include "core/layout/layout.hpp"
#include "reference/attention_inputs.hpp"

namespace attnlab {

// scale * (a . b) over n values, in fp64 (every score of the reference): four partial sums, so
// the additions do not wait on each other.
template <class T>
double scaled_dot(const T* a, const T* b, int n, double scale) {
  double s[4] = {0, 0, 0, 0};
  int d = 0;
  for (; d + 4 <= n; d += 4)
    for (int j = 0; j < 4; ++j) s[j] += double(a[d + j]) * double(b[d + j]);
  for (; d < n; ++d) s[0] += double(a[d]) * double(b[d]);
  return scale * ((s[0] + s[1]) + (s[2] + s[3]));
}

// One row's Q (for one head) and K, V (for its kv head) as contiguous doubles
// [extent][head_dim], read from canonical inputs through the layout's token_source.
// Padding positions hold zeros; they never take part.
struct RowHeadOperands {
  int row = 0;
  int head = 0;
  int extent = 0;  // positions of the row, padding included
  int head_dim = 0;
  std::vector<double> q, k, v;

  const double* q_at(int pos) const { return q.data() + static_cast<std::size_t>(pos) * head_dim; }
  const double* k_at(int pos) const { return k.data() + static_cast<std::size_t>(pos) * head_dim; }
  const double* v_at(int pos) const { return v.data() + static_cast<std::size_t>(pos) * head_dim; }

  double score(int query, int key, double scale) const { return scaled_dot(q_at(query), k_at(key), head_dim, scale); }
};

RowHeadOperands load_row_head(const Layout& layout, const AttentionInputs& canonical, int row, int head);

// What one query tile holds on chip between key tiles.
struct QueryTileState {
  int row = 0;
  int query_tile = 0;
  int first_query = 0;  // row position of the tile's first query
  int queries = 0;      // queries of the tile inside the row (the last tile may be short)
  int head_dim = 0;
  TileRange key_tiles;               // the key tiles this query tile visits (key_tiles_visited)
  int key_tiles_done = 0;            // key tiles visited so far, in order from key_tiles.first
  std::vector<double> running_max;   // m per query; -inf until a score takes part
  std::vector<double> running_sum;   // l per query
  std::vector<double> last_rescale;  // exp(m_old - m_new) applied at the last step (1 before any)
  std::vector<double> accumulator;   // unnormalised output [queries][head_dim]
};

QueryTileState start_query_tile(const LayoutView& view, TileShape tile, int row, int query_tile, int head_dim);

// Visits the next key tile (key_tiles.first + key_tiles_done) of the state's row.
void visit_next_key_tile(const LayoutView& view, TileShape tile, const RowHeadOperands& operands, double scale,
                         QueryTileState& state);

// Output of query i of the tile so far: accumulator / running sum (0 where no score took part).
double normalized_output(const QueryTileState& state, int i, int d);
// Natural-log log-sum-exp of query i's scaled scores so far: m + log(l), -inf where none took part.
double log_sum_exp(const QueryTileState& state, int i);

}  // namespace attnlab
