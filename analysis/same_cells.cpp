#include "analysis/same_cells.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

// (extent, tokens) of every row a flash kernel runs under `impl`, sorted: the cells
// it computes, up to the order of the rows, for a layout whose rows are each one
// causal span (padded, packed with bleed, varlen).
using RowShapes = std::vector<std::pair<int, int>>;

RowShapes row_shapes(const Scenario& s, Implementation impl) {
  RowShapes rows;
  if (impl == Implementation::packed) {
    const Layout packed = s.packed_layout();
    for (int r = 0; r < packed.num_rows(); ++r)
      rows.emplace_back(packed.row_start[r + 1] - packed.row_start[r], packed.row_valid[r]);
  } else {
    const int pad = s.padded_length();
    for (const int length : s.doc_lengths) rows.emplace_back(impl == Implementation::varlen ? length : pad, length);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

bool same_attention_shape(const Scenario& a, const Scenario& b) {
  return a.causal == b.causal && a.head_dim == b.head_dim && a.dtype == b.dtype &&
         a.heads / a.kv_heads == b.heads / b.kv_heads && a.total_tokens() == b.total_tokens();
}

// The window as it acts on these rows: a side that reaches past every row's end is
// no bound (-1), and under a causal mask the right side never matters.
Window effective_window(Window w, bool causal, const RowShapes& rows) {
  const int longest = rows.empty() ? 0 : std::max_element(rows.begin(), rows.end())->first;
  const auto bound = [&](int side) { return side < 0 || side >= longest - 1 ? -1 : side; };
  return {bound(w.left), causal ? -1 : bound(w.right)};
}

}  // namespace

bool computes_same_cells(const Scenario& a, Implementation ia, const Scenario& b, Implementation ib) {
  if (!same_attention_shape(a, b)) return false;
  const RowShapes rows_a = row_shapes(a, ia), rows_b = row_shapes(b, ib);
  return rows_a == rows_b &&
         effective_window(a.window, a.causal, rows_a) == effective_window(b.window, b.causal, rows_b);
}

std::optional<std::string> measured_as(const Scenario& s, std::span<const Scenario> shipped) {
  for (const Scenario& candidate : shipped) {
    if (candidate.heads != s.heads || candidate.kv_heads != s.kv_heads) continue;
    if (std::all_of(all_implementations.begin(), all_implementations.end(),
                    [&](Implementation i) { return computes_same_cells(s, i, candidate, i); }))
      return candidate.name;
  }
  return std::nullopt;
}

}  // namespace attnlab
