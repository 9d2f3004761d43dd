#include "analysis/same_cells.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"

namespace attnlab {

namespace {

// The window as it acts on rows of which the longest is `longest`: a side that reaches past
// every row's end is no bound (-1), and under a causal mask the right side never matters.
Window effective_window(Window w, bool causal, int longest) {
  const auto bound = [&](int side) { return side < 0 || side >= longest - 1 ? -1 : side; };
  return {bound(w.left), causal ? -1 : bound(w.right)};
}

bool same_attention_shape(const Scenario& a, const Scenario& b) {
  return a.causal == b.causal && a.head_dim == b.head_dim && a.dtype == b.dtype &&
         a.heads / a.kv_heads == b.heads / b.kv_heads && a.total_tokens() == b.total_tokens();
}

}  // namespace

RowShapes row_shapes(const Scenario& s, Implementation impl) {
  std::vector<std::pair<int, int>> rows;  // (extent, tokens) of every row
  if (impl == Implementation::packed) {
    const Layout packed = s.packed_layout();
    for (int r = 0; r < packed.num_rows(); ++r)
      rows.emplace_back(packed.row_start[r + 1] - packed.row_start[r], packed.row_valid[r]);
  } else {
    const int pad = s.padded_length();
    for (const int length : s.doc_lengths) rows.emplace_back(impl == Implementation::varlen ? length : pad, length);
  }
  std::sort(rows.begin(), rows.end());
  RowShapes shapes;
  for (const auto& [extent, tokens] : rows) {
    if (shapes.counted.empty() || std::get<0>(shapes.counted.back()) != extent ||
        std::get<1>(shapes.counted.back()) != tokens)
      shapes.counted.emplace_back(extent, tokens, 0);
    ++std::get<2>(shapes.counted.back());
    shapes.longest = std::max(shapes.longest, extent);
  }
  return shapes;
}

ScenarioCells::ScenarioCells(const Scenario& s)
    : causal(s.causal),
      window(s.window),
      head_dim(s.head_dim),
      heads(s.heads),
      kv_heads(s.kv_heads),
      dtype(s.dtype),
      tokens(s.total_tokens()) {
  for (Implementation i : all_implementations) rows[int(i)] = row_shapes(s, i);
}

bool computes_same_cells(const Scenario& a, Implementation ia, const Scenario& b, Implementation ib) {
  if (!same_attention_shape(a, b)) return false;
  const RowShapes rows_a = row_shapes(a, ia), rows_b = row_shapes(b, ib);
  return rows_a == rows_b &&
         effective_window(a.window, a.causal, rows_a.longest) == effective_window(b.window, b.causal, rows_b.longest);
}

std::optional<Scenario> scenario_named(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos || name.ends_with(".toml"))
    return std::nullopt;
  const std::filesystem::path file = scenarios_folder() / (name + ".toml");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  try {
    return load_scenario(file.string());
  } catch (const InputError&) {
    return std::nullopt;  // a file that cannot be read stands for nothing
  }
}

ScenarioLookup lookup_in(std::span<const Scenario> defined) {
  return [defined](const std::string& name) -> std::optional<Scenario> {
    for (const Scenario& s : defined)
      if (s.name == name) return s;
    return std::nullopt;
  };
}

const std::optional<RunCells::Named>& RunCells::named(const std::string& name) const {
  if (const auto at = held_.find(name); at != held_.end()) return at->second;
  if (held_.size() >= max_held) held_.clear();
  std::optional<Named> shapes;
  if (const std::optional<Scenario> s = lookup_(name)) {
    shapes.emplace();
    shapes->tokens = s->total_tokens();
    for (Implementation i : all_implementations) shapes->rows[int(i)] = row_shapes(*s, i);
  }
  return held_.emplace(name, std::move(shapes)).first->second;
}

bool RunCells::computes(const ScenarioCells& target, Implementation impl, const ResultRow& row) const {
  const std::optional<Implementation> ran = parse_implementation(row.implementation);
  return ran && computes(target, impl, row, *ran);
}

bool RunCells::computes(const ScenarioCells& target, Implementation impl, const ResultRow& row,
                        Implementation ran) const {
  // The row's own columns first: its mask, shape and tokens.
  if (!row.window_left || !row.window_right || !row.tokens || row.heads <= 0) return false;
  const int kv_heads = row.kv_heads.value_or(row.heads);
  if (kv_heads <= 0 || row.heads % kv_heads != 0) return false;
  if (row.causal != target.causal || row.head_dim != target.head_dim || row.dtype != target.dtype ||
      row.heads / kv_heads != target.heads / target.kv_heads || *row.tokens != target.tokens)
    return false;
  // Then the documents of the scenario it names, under the implementation it ran.
  const std::optional<Named>& named_rows = named(row.scenario);
  if (!named_rows || named_rows->tokens != target.tokens) return false;
  const RowShapes &mine = target.rows[int(impl)], &theirs = named_rows->rows[int(ran)];
  return mine == theirs && effective_window(target.window, target.causal, mine.longest) ==
                               effective_window({*row.window_left, *row.window_right}, row.causal, theirs.longest);
}

std::optional<std::string> measured_as(const Scenario& s, const LoadedResults& results, const RunCells& cells) {
  // One row of each name in s's own configuration, s's own name first.
  std::vector<const ResultRow*> candidates;
  std::set<std::string_view> named;
  const auto same_configuration = [&](const ResultRow& r) {
    return r.dtype == s.dtype && r.heads == s.heads && r.kv_heads.value_or(r.heads) == s.kv_heads &&
           r.head_dim == s.head_dim && r.causal == s.causal;
  };
  for (const ResultsFile& file : results.files)
    for (const ResultRow& row : file.rows)
      if (same_configuration(row) && named.insert(row.scenario).second) candidates.push_back(&row);
  std::stable_partition(candidates.begin(), candidates.end(),
                        [&](const ResultRow* c) { return c->scenario == s.name; });
  const ScenarioCells target(s);
  for (const ResultRow* candidate : candidates)
    if (std::all_of(all_implementations.begin(), all_implementations.end(),
                    [&](Implementation i) { return cells.computes(target, i, *candidate, i); }))
      return candidate->scenario;
  return std::nullopt;
}

}  // namespace attnlab
