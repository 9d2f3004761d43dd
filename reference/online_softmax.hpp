#pragma once
// The flash algorithm's arithmetic, in fp64, for one (row, head) of a layout:
// a query tile keeps a running max m, a running sum l and an unnormalised output
// accumulator per query; each visited key tile raises m, rescales l and the
// accumulator by exp(m_old - m_new), and adds its own exp(s - m) terms. At the end
// O = acc / l and LSE = m + log(l). reference_tiled and the GUI's walkthrough both
// run exactly these functions.
#include <vector>

#include "core/layout.hpp"
#include "reference/attention_inputs.hpp"

namespace attnlab {

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

  // scale * (q . k): four partial sums, so the additions do not wait on each other.
  double score(int query, int key, double scale) const {
    const double *a = q_at(query), *b = k_at(key);
    double s[4] = {0, 0, 0, 0};
    int d = 0;
    for (; d + 4 <= head_dim; d += 4)
      for (int j = 0; j < 4; ++j) s[j] += a[d + j] * b[d + j];
    for (; d < head_dim; ++d) s[0] += a[d] * b[d];
    return scale * ((s[0] + s[1]) + (s[2] + s[3]));
  }
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
