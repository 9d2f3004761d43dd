#include "reference/reference_backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reference/computed_part.hpp"
#include "reference/online_softmax.hpp"

namespace attnlab {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y += alpha * x
void add_scaled(double* y, double alpha, const double* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// Gradients with room for the chosen rows and whole KV groups of heads.
ReferenceGradients empty_gradients(const Layout& layout, const AttentionInputs& in, std::span<const float> grad_output,
                                   const ReferenceOptions& options) {
  check_reference_inputs(layout, in);
  const std::size_t grad_values = static_cast<std::size_t>(in.tokens) * in.heads * in.head_dim;
  if (grad_output.size() != grad_values)
    throw std::invalid_argument("reference backward: dO has " + std::to_string(grad_output.size()) +
                                " values, expected tokens x heads x head_dim = " + std::to_string(grad_values));
  ReferenceGradients g;
  g.positions = layout.buffer_tokens();
  g.heads = in.heads;
  g.kv_heads = in.kv_heads;
  g.head_dim = in.head_dim;
  g.computed_rows = chosen_or_all(options.rows, layout.num_rows(), "row");
  g.computed_heads = chosen_or_all(options.heads, in.heads, "head");
  if (whole_kv_groups(g.computed_heads, in.heads, in.kv_heads) != g.computed_heads)
    throw std::invalid_argument(
        "reference backward: the chosen heads must be whole KV groups (dK and dV sum over a "
        "group's query heads); widen them with whole_kv_groups");
  for (int h : g.computed_heads)
    if (g.computed_kv_heads.empty() || g.computed_kv_heads.back() != in.kv_head_of(h))
      g.computed_kv_heads.push_back(in.kv_head_of(h));
  PositionSlots slots = number_positions(layout, g.computed_rows);
  g.row_computed = std::move(slots.row_computed);
  g.slot_of_position = std::move(slots.slot_of_position);
  g.slot_of_head = slots_of(g.computed_heads, in.heads);
  g.slot_of_kv_head = slots_of(g.computed_kv_heads, in.kv_heads);
  const std::size_t d = in.head_dim;
  g.dq.assign(slots.count * g.computed_heads.size() * d, std::numeric_limits<double>::quiet_NaN());
  g.dk.assign(slots.count * g.computed_kv_heads.size() * d, std::numeric_limits<double>::quiet_NaN());
  g.dv.assign(g.dk.size(), std::numeric_limits<double>::quiet_NaN());
  return g;
}

double* dq_slot(ReferenceGradients& g, std::int64_t pos, int head) {
  return g.dq.data() + (g.slot_of_position[pos] * g.computed_heads.size() + g.slot_of_head[head]) * g.head_dim;
}
std::size_t kv_offset(const ReferenceGradients& g, std::int64_t pos, int kv_head) {
  return (g.slot_of_position[pos] * g.computed_kv_heads.size() + g.slot_of_kv_head[kv_head]) * g.head_dim;
}

// One row's dO for one head as doubles [extent][head_dim]; padding positions hold zeros.
std::vector<double> load_row_grad(const Layout& layout, const AttentionInputs& in, std::span<const float> grad_output,
                                  int row, int head) {
  const int first = layout.row_start[row], extent = layout.row_start[row + 1] - first, D = in.head_dim;
  std::vector<double> grad(static_cast<std::size_t>(extent) * D, 0.0);
  for (int pos = 0; pos < extent; ++pos) {
    const std::int64_t t = layout.token_source[first + pos];
    if (t >= 0) std::copy_n(grad_output.data() + (t * in.heads + head) * D, D, grad.begin() + std::size_t(pos) * D);
  }
  return grad;
}

// dK and dV of one row and kv head, summed over the query heads of its group, both
// without the softmax scale (dK's is applied once at the end, as dQ's).
struct KeyGradients {
  int head_dim;
  std::vector<double> dk, dv;  // [extent][head_dim]
  KeyGradients(int extent, int dim)
      : head_dim(dim), dk(std::size_t(extent) * dim, 0.0), dv(std::size_t(extent) * dim, 0.0) {}
  double* dk_at(int pos) { return dk.data() + std::size_t(pos) * head_dim; }
  double* dv_at(int pos) { return dv.data() + std::size_t(pos) * head_dim; }
};

// The contribution of one attended cell (q, k) with probability p: the heart of both algorithms.
//   dV_k += p·dO_q;  dS = p·(dO_q·V_k − D_q);  dQ_q += dS·K_k;  dK_k += dS·Q_q  (scales applied later)
void add_cell(const RowHeadOperands& ops, const double* grad_q, double rowsum_q, int q, int k, double p, double* dq_acc,
              KeyGradients& keys) {
  const int D = ops.head_dim;
  add_scaled(keys.dv_at(k), p, grad_q, D);
  const double ds = p * (dot(grad_q, ops.v_at(k), D) - rowsum_q);
  add_scaled(dq_acc, ds, ops.k_at(k), D);
  add_scaled(keys.dk_at(k), ds, ops.q_at(q), D);
}

void store_key_gradients(ReferenceGradients& g, const Layout& layout, int row, int kv_head, const KeyGradients& keys,
                         double scale) {
  const int extent = layout.row_start[row + 1] - layout.row_start[row];
  for (int pos = 0; pos < extent; ++pos) {
    const std::size_t at = kv_offset(g, layout.row_start[row] + pos, kv_head), from = std::size_t(pos) * g.head_dim;
    for (int d = 0; d < g.head_dim; ++d) {
      g.dk[at + d] = scale * keys.dk[from + d];
      g.dv[at + d] = keys.dv[from + d];
    }
  }
}

void check_forward_covers(const ReferenceOutput& forward, const Layout& layout, const ReferenceGradients& g) {
  if (forward.positions != layout.buffer_tokens() || forward.heads != g.heads || forward.head_dim != g.head_dim)
    throw std::invalid_argument("reference backward: the forward output is of another layout or shape");
  for (int r : g.computed_rows)
    if (!forward.row_computed[r])
      throw std::invalid_argument("reference backward: the forward did not compute row " + std::to_string(r));
  for (int h : g.computed_heads)
    if (forward.slot_of_head[h] < 0)
      throw std::invalid_argument("reference backward: the forward did not compute head " + std::to_string(h));
}

}  // namespace

std::vector<int> whole_kv_groups(const std::vector<int>& heads, int num_heads, int kv_heads) {
  if (heads.empty()) return {};
  const int group = num_heads / kv_heads;
  std::vector<int> whole;
  for (int h : chosen_or_all(heads, num_heads, "head"))
    for (int member = h / group * group; member < (h / group + 1) * group; ++member)
      if (whole.empty() || whole.back() < member) whole.push_back(member);
  return whole;
}

ReferenceGradients reference_backward_materialized(const Layout& layout, const AttentionInputs& in,
                                                   std::span<const float> grad_output, double scale,
                                                   const ReferenceOptions& options) {
  ReferenceGradients g = empty_gradients(layout, in, grad_output, options);
  const LayoutView view = layout.view();
  const int D = in.head_dim, group = in.heads / in.kv_heads;
  // One worker per (row, kv head): it owns the dK, dV sums of the group's heads.
  for_each_row_head(g.computed_rows, g.computed_kv_heads, options.threads, [&](int r, int kv) {
    const int extent = row_extent(view, r);
    KeyGradients keys(extent, D);
    std::vector<double> p(extent), o(D);
    for (int h = kv * group; h < (kv + 1) * group; ++h) {
      const RowHeadOperands ops = load_row_head(layout, in, r, h);
      const std::vector<double> grad = load_row_grad(layout, in, grad_output, r, h);
      for (int q = 0; q < extent; ++q) {
        double* dq = dq_slot(g, layout.row_start[r] + q, h);
        std::fill(dq, dq + D, 0.0);
        // The full masked softmax row P, then O = P·V and D_q = dO_q·O_q.
        double max = minus_infinity;
        for (int k = 0; k < extent; ++k) {
          p[k] = attended(cell_kind(view, r, q, k)) ? ops.score(q, k, scale) : minus_infinity;
          max = std::max(max, p[k]);
        }
        if (max == minus_infinity) continue;  // no key takes part (a padding query)
        double sum = 0;
        for (int k = 0; k < extent; ++k) sum += p[k] = p[k] == minus_infinity ? 0.0 : std::exp(p[k] - max);
        std::fill(o.begin(), o.end(), 0.0);
        for (int k = 0; k < extent; ++k) add_scaled(o.data(), p[k] /= sum, ops.v_at(k), D);
        const double* grad_q = grad.data() + std::size_t(q) * D;
        const double rowsum = dot(grad_q, o.data(), D);
        for (int k = 0; k < extent; ++k)
          if (attended(cell_kind(view, r, q, k))) add_cell(ops, grad_q, rowsum, q, k, p[k], dq, keys);
        for (int d = 0; d < D; ++d) dq[d] *= scale;
      }
    }
    store_key_gradients(g, layout, r, kv, keys, scale);
  });
  return g;
}

ReferenceGradients reference_backward_tiled(const Layout& layout, const AttentionInputs& in,
                                            const ReferenceOutput& forward, std::span<const float> grad_output,
                                            double scale, TileShape tile, const ReferenceOptions& options) {
  if (tile.rows <= 0 || tile.cols <= 0) throw std::invalid_argument("reference backward: tile sides must be positive");
  ReferenceGradients g = empty_gradients(layout, in, grad_output, options);
  check_forward_covers(forward, layout, g);
  const LayoutView view = layout.view();
  const int D = in.head_dim, group = in.heads / in.kv_heads;
  for_each_row_head(g.computed_rows, g.computed_kv_heads, options.threads, [&](int r, int kv) {
    const int extent = row_extent(view, r), first = layout.row_start[r];
    KeyGradients keys(extent, D);
    std::vector<double> lse(extent), rowsum(extent), dq(std::size_t(extent) * D);
    for (int h = kv * group; h < (kv + 1) * group; ++h) {
      const RowHeadOperands ops = load_row_head(layout, in, r, h);
      const std::vector<double> grad = load_row_grad(layout, in, grad_output, r, h);
      // What the forward saved (LSE) and the one extra pass a flash backward makes: D_q = dO_q·O_q.
      for (int q = 0; q < extent; ++q) {
        lse[q] = forward.lse_at(first + q, h);
        rowsum[q] = 0;
        if (lse[q] == minus_infinity) continue;  // no key takes part
        for (int d = 0; d < D; ++d) rowsum[q] += grad[std::size_t(q) * D + d] * forward.o_at(first + q, h, d);
      }
      std::fill(dq.begin(), dq.end(), 0.0);
      // Per key tile, the query tiles that visit it; P recomputed from the LSE.
      for (int kt = 0; kt < tiles_along(extent, tile.cols); ++kt) {
        const int k_end = std::min((kt + 1) * tile.cols, extent);
        const TileRange visiting = query_tiles_visiting(view, tile, r, kt);
        for (int qt = visiting.first; qt < visiting.end; ++qt) {
          const int q_end = std::min((qt + 1) * tile.rows, extent);
          for (int q = qt * tile.rows; q < q_end; ++q)
            for (int k = kt * tile.cols; k < k_end; ++k) {
              if (!attended(cell_kind(view, r, q, k))) continue;
              const double p = std::exp(ops.score(q, k, scale) - lse[q]);
              add_cell(ops, grad.data() + std::size_t(q) * D, rowsum[q], q, k, p, dq.data() + std::size_t(q) * D, keys);
            }
        }
      }
      for (int q = 0; q < extent; ++q) {
        double* out = dq_slot(g, first + q, h);
        for (int d = 0; d < D; ++d) out[d] = scale * dq[std::size_t(q) * D + d];
      }
    }
    store_key_gradients(g, layout, r, kv, keys, scale);
  });
  return g;
}

}  // namespace attnlab
