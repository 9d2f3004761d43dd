#include "reference/reference_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/computed_part.hpp"
#include "reference/online_softmax.hpp"

namespace attnlab {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// Output with room for the chosen rows and heads.
ReferenceOutput empty_output(const Layout& layout, const AttentionInputs& in, const ReferenceOptions& options) {
  check_reference_inputs(layout, in);
  ReferenceOutput out;
  out.positions = layout.buffer_tokens();
  out.heads = in.heads;
  out.head_dim = in.head_dim;
  out.computed_rows = chosen_or_all(options.rows, layout.num_rows(), "row");
  out.computed_heads = chosen_or_all(options.heads, in.heads, "head");
  PositionSlots slots = number_positions(layout, out.computed_rows);
  out.row_computed = std::move(slots.row_computed);
  out.slot_of_position = std::move(slots.slot_of_position);
  out.slot_of_head = slots_of(out.computed_heads, in.heads);
  const std::size_t values = static_cast<std::size_t>(slots.count) * out.computed_heads.size();
  out.lse.assign(values, std::numeric_limits<double>::quiet_NaN());
  out.o.assign(values * in.head_dim, std::numeric_limits<double>::quiet_NaN());
  return out;
}

double* output_at(ReferenceOutput& out, std::int64_t pos, int head) {
  return out.o.data() + out.slot(pos, head) * out.head_dim;
}
double& lse_slot(ReferenceOutput& out, std::int64_t pos, int head) { return out.lse[out.slot(pos, head)]; }

}  // namespace

double default_scale(int head_dim) { return 1.0 / std::sqrt(static_cast<double>(head_dim)); }

ReferenceOutput reference_materialized(const Layout& layout, const AttentionInputs& in, double scale,
                                       const ReferenceOptions& options) {
  ReferenceOutput out = empty_output(layout, in, options);
  const LayoutView view = layout.view();
  const int D = in.head_dim;
  for_each_row_head(out.computed_rows, out.computed_heads, options.threads, [&](int r, int h) {
    const RowHeadOperands ops = load_row_head(layout, in, r, h);
    std::vector<double> scores(ops.extent);
    for (int q = 0; q < ops.extent; ++q) {
      // The score row over the keys the query attends (one range, core/layout/layout.hpp: every cell of
      // it useful or bleed), then softmax and P·V. The masked cells of the row would enter at
      // -inf, as exp(-inf) = 0: skipping them keeps the cost at the cells attended, whatever the
      // window leaves of a long row.
      const KeyRange keys = attended_keys(view, r, q);
      double max = minus_infinity;
      for (int k = keys.first; k <= keys.last; ++k) {
        scores[k] = ops.score(q, k, scale);
        max = std::max(max, scores[k]);
      }
      const std::int64_t pos = layout.row_start[r] + q;
      double* o = output_at(out, pos, h);
      std::fill(o, o + D, 0.0);
      if (max == minus_infinity) {  // no key takes part (a padding query)
        lse_slot(out, pos, h) = minus_infinity;
        continue;
      }
      double sum = 0;
      for (int k = keys.first; k <= keys.last; ++k) {
        const double p = std::exp(scores[k] - max);
        sum += p;
        for (int d = 0; d < D; ++d) o[d] += p * ops.v_at(k)[d];
      }
      for (int d = 0; d < D; ++d) o[d] /= sum;
      lse_slot(out, pos, h) = max + std::log(sum);
    }
  });
  return out;
}

ReferenceOutput reference_tiled(const Layout& layout, const AttentionInputs& in, double scale, TileShape tile,
                                const ReferenceOptions& options) {
  if (tile.rows <= 0 || tile.cols <= 0) throw std::invalid_argument("reference: tile sides must be positive");
  ReferenceOutput out = empty_output(layout, in, options);
  const LayoutView view = layout.view();
  for_each_row_head(out.computed_rows, out.computed_heads, options.threads, [&](int r, int h) {
    const RowHeadOperands ops = load_row_head(layout, in, r, h);
    for (int qt = 0; qt < query_tiles(view, tile, r); ++qt) {
      QueryTileState state = start_query_tile(view, tile, r, qt, in.head_dim);
      while (state.key_tiles_done < state.key_tiles.count()) visit_next_key_tile(view, tile, ops, scale, state);
      for (int i = 0; i < state.queries; ++i) {
        const std::int64_t pos = layout.row_start[r] + state.first_query + i;
        double* o = output_at(out, pos, h);
        for (int d = 0; d < in.head_dim; ++d) o[d] = normalized_output(state, i, d);
        lse_slot(out, pos, h) = log_sum_exp(state, i);
      }
    }
  });
  return out;
}

}  // namespace attnlab
