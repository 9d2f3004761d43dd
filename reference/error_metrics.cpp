#include "reference/error_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attnlab {

namespace {

// |a - b|, where a NaN (an unwritten or broken output) is infinitely far.
double distance(double a, double b) {
  const double d = std::abs(a - b);
  return std::isnan(d) ? HUGE_VAL : d;
}

// Sums squared differences and squared references one value at a time.
struct ErrorSums {
  double diff2 = 0, ref2 = 0, max_abs = 0;
  std::int64_t values = 0;

  void add(double candidate, double reference) {
    const double diff = distance(candidate, reference);
    diff2 += diff * diff;
    ref2 += reference * reference;
    max_abs = std::max(max_abs, diff);
    ++values;
  }
  ErrorStats stats() const {
    ErrorStats s;
    // A zero reference: no error if the candidate is zero too, otherwise infinitely far.
    s.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? HUGE_VAL : 0.0);
    s.max_abs = max_abs;
    s.values = values;
    return s;
  }
};

void check_size(std::size_t got, std::size_t want, const char* what) {
  if (got != want)
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(got) + " values, expected " +
                                std::to_string(want));
}

// The row of each buffer position.
std::vector<int> row_of_positions(const Layout& layout) {
  std::vector<int> row(layout.buffer_tokens());
  for (int r = 0; r < layout.num_rows(); ++r)
    std::fill(row.begin() + layout.row_start[r], row.begin() + layout.row_start[r + 1], r);
  return row;
}

// Position of each canonical token in the layout, -1 where it does not appear (cropped).
std::vector<std::int64_t> position_of_tokens(const Layout& layout, std::int64_t tokens) {
  std::vector<std::int64_t> pos(tokens, -1);
  for (std::int64_t p = 0; p < layout.buffer_tokens(); ++p)
    if (layout.token_source[p] >= 0) pos.at(layout.token_source[p]) = p;
  return pos;
}

std::int64_t canonical_tokens(const Layout& a, const Layout& b) {
  std::int64_t n = 0;
  for (const Layout* l : {&a, &b})
    for (std::int64_t t : l->token_source) n = std::max(n, t + 1);
  return n;
}

// Compares candidate(pos, head, d) with the reference over positions of `layout_c`
// whose token appears at a computed position of the reference's layout.
template <class CandidateValue, class CandidateComputed>
ErrorStats compare_tokens(const Layout& layout_c, CandidateValue candidate, CandidateComputed candidate_computed,
                          const Layout& layout_r, const ReferenceOutput& ref) {
  const std::vector<std::int64_t> ref_pos = position_of_tokens(layout_r, canonical_tokens(layout_c, layout_r));
  const std::vector<int> ref_row = row_of_positions(layout_r);
  const std::vector<int> cand_row = row_of_positions(layout_c);
  ErrorSums sums;
  for (std::int64_t p = 0; p < layout_c.buffer_tokens(); ++p) {
    const std::int64_t t = layout_c.token_source[p];
    if (t < 0 || !candidate_computed(cand_row[p])) continue;
    const std::int64_t rp = ref_pos[t];
    if (rp < 0 || !ref.row_computed[ref_row[rp]]) continue;
    for (int h : ref.computed_heads)
      for (int d = 0; d < ref.head_dim; ++d) sums.add(candidate(p, h, d), ref.o_at(rp, h, d));
  }
  return sums.stats();
}

}  // namespace

ErrorStats compare_to_reference(const Layout& layout, const ReferenceOutput& ref, std::span<const float> o,
                                std::span<const float> lse) {
  const std::size_t per_position = static_cast<std::size_t>(ref.heads) * ref.head_dim;
  check_size(o.size(), static_cast<std::size_t>(ref.positions) * per_position, "candidate output");
  if (!lse.empty()) check_size(lse.size(), static_cast<std::size_t>(ref.positions) * ref.heads, "candidate LSE");
  ErrorSums sums;
  double lse_max_abs = 0;
  for (int r : ref.computed_rows)
    for (std::int64_t p = layout.row_start[r]; p < layout.row_start[r] + layout.row_valid[r]; ++p)
      for (int h : ref.computed_heads) {
        const float* c = o.data() + (p * ref.heads + h) * ref.head_dim;
        for (int d = 0; d < ref.head_dim; ++d) sums.add(c[d], ref.o_at(p, h, d));
        if (!lse.empty()) lse_max_abs = std::max(lse_max_abs, distance(lse[p * ref.heads + h], ref.lse_at(p, h)));
      }
  ErrorStats stats = sums.stats();
  if (!lse.empty()) stats.lse_max_abs = lse_max_abs;
  return stats;
}

GradientErrorStats compare_gradients_to_reference(const Layout& layout, const ReferenceGradients& ref,
                                                  std::span<const float> dq, std::span<const float> dk,
                                                  std::span<const float> dv) {
  const std::size_t D = ref.head_dim, positions = static_cast<std::size_t>(ref.positions);
  check_size(dq.size(), positions * ref.heads * D, "candidate dQ");
  check_size(dk.size(), positions * ref.kv_heads * D, "candidate dK");
  check_size(dv.size(), positions * ref.kv_heads * D, "candidate dV");
  ErrorSums dq_sums, dk_sums, dv_sums;
  for (int r : ref.computed_rows)
    for (std::int64_t p = layout.row_start[r]; p < layout.row_start[r] + layout.row_valid[r]; ++p) {
      for (int h : ref.computed_heads)
        for (std::size_t d = 0; d < D; ++d) dq_sums.add(dq[(p * ref.heads + h) * D + d], ref.dq_at(p, h, int(d)));
      for (int g : ref.computed_kv_heads)
        for (std::size_t d = 0; d < D; ++d) {
          const std::size_t at = (p * ref.kv_heads + g) * D + d;
          dk_sums.add(dk[at], ref.dk_at(p, g, int(d)));
          dv_sums.add(dv[at], ref.dv_at(p, g, int(d)));
        }
    }
  return {dq_sums.stats(), dk_sums.stats(), dv_sums.stats()};
}

const ErrorStats& GradientErrorStats::worst() const {
  const ErrorStats* w = &dq;
  for (const ErrorStats* e : {&dk, &dv})
    if (e->rel_l2 > w->rel_l2) w = e;
  return *w;
}

const char* GradientErrorStats::worst_name() const {
  const ErrorStats& w = worst();
  return &w == &dq ? "dQ" : &w == &dk ? "dK" : "dV";
}

ErrorStats compare_across_layouts(const Layout& candidate_layout, std::span<const float> candidate_o,
                                  const Layout& reference_layout, const ReferenceOutput& ref) {
  const std::size_t stride = static_cast<std::size_t>(ref.heads) * ref.head_dim;
  check_size(candidate_o.size(), static_cast<std::size_t>(candidate_layout.buffer_tokens()) * stride,
             "candidate output");
  return compare_tokens(
      candidate_layout,
      [&](std::int64_t p, int h, int d) { return double(candidate_o[p * stride + h * ref.head_dim + d]); },
      [](int) { return true; }, reference_layout, ref);
}

ErrorStats compare_across_layouts(const Layout& candidate_layout, const ReferenceOutput& candidate,
                                  const Layout& reference_layout, const ReferenceOutput& ref) {
  if (candidate.heads != ref.heads || candidate.head_dim != ref.head_dim ||
      candidate.computed_heads != ref.computed_heads)
    throw std::invalid_argument("compare_across_layouts: the two outputs computed different heads");
  return compare_tokens(
      candidate_layout, [&](std::int64_t p, int h, int d) { return candidate.o_at(p, h, d); },
      [&](int row) { return candidate.row_computed[row] != 0; }, reference_layout, ref);
}

}  // namespace attnlab
