#include "core/cost/cost_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/cost/hbm_bytes.hpp"

namespace attnlab {

namespace {

constexpr std::int64_t index_bytes = 4;  // the layout's index arrays are int32

// Bytes of the LayoutView arrays a kernel reads to know where documents are (README: "Extra memory").
std::int64_t layout_index_bytes(const Layout& l) {
  const auto ints = l.row_start.size() + l.row_valid.size() + l.row_piece.size() + l.piece_start.size() +
                    l.piece_doc.size() + l.token_doc.size();
  return static_cast<std::int64_t>(ints) * index_bytes;
}

double ratio(std::int64_t a, std::int64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

ImplementationCost cost_of(Implementation impl, const Scenario& s, const Layout& layout, TileShape tile) {
  const LayoutCount count = count_layout_by_query_tile(layout, tile);
  const std::int64_t heads = s.heads, kv_heads = s.kv_heads, d = s.head_dim, elem = dtype_bytes(s.dtype);

  ImplementationCost c;
  c.implementation = impl;
  c.layout = layout.kind;
  c.tile = tile;
  c.buffer_tokens = layout.buffer_tokens();
  c.tiles_visited = count.tiles_visited * heads;
  c.scores = count.cells.times(heads);
  c.flops_fwd = 4 * d * c.scores_computed();
  c.flops_useful_fwd = 4 * d * c.scores_useful();

  const std::int64_t row_bytes = c.buffer_tokens * d * elem;  // one head's Q (or K, V, O) over the buffer
  c.hbm.q_read = row_bytes * heads;
  c.hbm.o_written = row_bytes * heads;
  if (materializes_scores(impl)) {
    c.hbm.k_read = row_bytes * kv_heads;
    c.hbm.v_read = row_bytes * kv_heads;
    c.hbm.s_written = c.hbm.s_read = c.scores_computed() * score_bytes;
    c.hbm.p_written = c.hbm.p_read = c.scores_computed() * elem;
    c.extra_memory_bytes = c.scores_computed() * (score_bytes + elem) + layout_index_bytes(layout);
  } else {
    c.hbm.k_read = count.key_tokens_loaded * d * elem * kv_heads;
    c.hbm.v_read = c.hbm.k_read;
    c.hbm.lse_written = c.buffer_tokens * heads * lse_bytes;
    c.extra_memory_bytes = c.hbm.lse_written + layout_index_bytes(layout);
  }
  return c;
}

}  // namespace

LayoutCount count_layout_by_query_tile(const Layout& layout, TileShape tile) {
  const LayoutView v = layout.view();
  LayoutCount count;
  for (int r = 0; r < v.num_rows; ++r) {
    const int extent = row_extent(v, r);
    for (int qt = 0; qt < query_tiles(v, tile, r); ++qt) {
      // Visited key tiles are one run [first, end) of the row, so the counts of those
      // tiles sum to the count of one tile that spans them (count_tile is additive in k).
      const TileRange keys = key_tiles_visited(v, tile, r, qt);
      count.cells +=
          count_tile(v, r, qt * tile.rows, keys.first * tile.cols, TileShape{tile.rows, keys.count() * tile.cols});
      count.tiles_visited += keys.count();
      count.key_tokens_loaded += keys_loaded(keys, tile, extent);
    }
  }
  return count;
}

CostModel model_costs(const Scenario& s, TileShape tile) { return model_costs(s, ScenarioLayouts(s), tile); }

CostModel model_costs(const Scenario& s, const ScenarioLayouts& layouts, TileShape tile) {
  const Layout &padded = layouts.padded, &packed = layouts.packed, &varlen = layouts.varlen;
  const int padded_length = s.padded_length();
  CostModel m;
  m.tile = tile;
  m.costs[int(Implementation::naive)] = cost_of(Implementation::naive, s, padded, {padded_length, padded_length});
  m.costs[int(Implementation::padded)] = cost_of(Implementation::padded, s, padded, tile);
  m.costs[int(Implementation::packed)] = cost_of(Implementation::packed, s, packed, tile);
  m.costs[int(Implementation::varlen)] = cost_of(Implementation::varlen, s, varlen, tile);
  const ImplementationCost& base = m[Implementation::varlen];
  for (ImplementationCost& c : m.costs) {
    c.computed_vs_varlen = ratio(c.scores_computed(), base.scores_computed());
    c.attended_vs_varlen = ratio(c.scores_attended(), base.scores_attended());
    c.hbm_vs_varlen = ratio(c.hbm.total(), base.hbm.total());
    c.useful_lost = base.scores_useful() - c.scores_useful();
  }
  return m;
}

}  // namespace attnlab
