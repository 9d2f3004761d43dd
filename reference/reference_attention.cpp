#include "reference/reference_attention.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "reference/online_softmax.hpp"

namespace attnlab {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

std::vector<int> all_up_to(int n) {
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

std::vector<int> sorted_checked(std::vector<int> chosen, int limit, const char* what) {
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  if (!chosen.empty() && (chosen.front() < 0 || chosen.back() >= limit))
    throw std::out_of_range(std::string("reference: ") + what + " out of range [0, " + std::to_string(limit) + ")");
  return chosen;
}

// Output with room for the chosen rows and heads.
ReferenceOutput empty_output(const Layout& layout, const AttentionInputs& in, const ReferenceOptions& options) {
  if (in.tokens < 0 || in.heads <= 0 || in.kv_heads <= 0 || in.heads % in.kv_heads != 0)
    throw std::invalid_argument("reference: inputs need heads a positive multiple of kv_heads");
  for (std::int64_t t : layout.token_source)
    if (t >= in.tokens) throw std::out_of_range("reference: layout token beyond the inputs");
  ReferenceOutput out;
  out.positions = layout.buffer_tokens();
  out.heads = in.heads;
  out.head_dim = in.head_dim;
  out.computed_rows = options.rows.empty() ? all_up_to(layout.num_rows())
                                           : sorted_checked(options.rows, layout.num_rows(), "row");
  out.computed_heads = options.heads.empty() ? all_up_to(in.heads) : sorted_checked(options.heads, in.heads, "head");
  out.row_computed.assign(layout.num_rows(), 0);
  out.slot_of_position.assign(out.positions, -1);
  std::int64_t slots = 0;
  for (int r : out.computed_rows) {
    out.row_computed[r] = 1;
    for (std::int64_t p = layout.row_start[r]; p < layout.row_start[r + 1]; ++p) out.slot_of_position[p] = slots++;
  }
  out.slot_of_head.assign(in.heads, -1);
  for (std::size_t i = 0; i < out.computed_heads.size(); ++i) out.slot_of_head[out.computed_heads[i]] = static_cast<int>(i);
  const std::size_t values = static_cast<std::size_t>(slots) * out.computed_heads.size();
  out.lse.assign(values, std::numeric_limits<double>::quiet_NaN());
  out.o.assign(values * in.head_dim, std::numeric_limits<double>::quiet_NaN());
  return out;
}

// Runs work(row, head) for every chosen pair on a few threads; pairs write disjoint outputs.
void for_each_row_head(const ReferenceOutput& out, int threads, const std::function<void(int, int)>& work) {
  const std::size_t pairs = out.computed_rows.size() * out.computed_heads.size();
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<std::size_t>(threads, std::max<std::size_t>(pairs, 1)));
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < pairs;)
      work(out.computed_rows[i / out.computed_heads.size()], out.computed_heads[i % out.computed_heads.size()]);
  };
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
}

double* output_at(ReferenceOutput& out, std::int64_t pos, int head) { return out.o.data() + out.slot(pos, head) * out.head_dim; }
double& lse_slot(ReferenceOutput& out, std::int64_t pos, int head) { return out.lse[out.slot(pos, head)]; }

}  // namespace

double default_scale(int head_dim) { return 1.0 / std::sqrt(static_cast<double>(head_dim)); }

ReferenceOutput reference_materialized(const Layout& layout, const AttentionInputs& in, double scale,
                                       const ReferenceOptions& options) {
  ReferenceOutput out = empty_output(layout, in, options);
  const LayoutView view = layout.view();
  const int D = in.head_dim;
  for_each_row_head(out, options.threads, [&](int r, int h) {
    const RowHeadOperands ops = load_row_head(layout, in, r, h);
    std::vector<double> scores(ops.extent);
    for (int q = 0; q < ops.extent; ++q) {
      // The whole score row, masked cells at -inf, then softmax and P·V.
      double max = minus_infinity;
      for (int k = 0; k < ops.extent; ++k) {
        scores[k] = attended(cell_kind(view, r, q, k)) ? ops.score(q, k, scale) : minus_infinity;
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
      for (int k = 0; k < ops.extent; ++k) {
        if (scores[k] == minus_infinity) continue;
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
  for_each_row_head(out, options.threads, [&](int r, int h) {
    const RowHeadOperands ops = load_row_head(layout, in, r, h);
    for (int qt = 0; qt < query_tiles(view, tile, r); ++qt) {
      QueryTileState state = start_query_tile(view, tile, r, qt, in.head_dim);
      while (state.key_tiles_done < state.key_tiles.count())
        visit_next_key_tile(view, tile, ops, scale, state);
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
