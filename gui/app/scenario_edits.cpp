#include "gui/app/scenario_edits.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <exception>
#include <numeric>

#include "analysis/number_format.hpp"
#include "core/scenario/scenario_file.hpp"

namespace attnlab::gui {

namespace {

// Versions are unique in the process, not per state: a view's picture kept for one state's
// version is never taken for another state's (a test makes several).
std::uint64_t next_scenario_version() {
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}

}  // namespace

bool apply_edit(AppState& state, const std::function<void(Scenario&)>& change) {
  Scenario edited = state.scenario;
  try {
    change(edited);
    edited.resolve();
    check_fits_gui(edited);
  } catch (const std::exception& e) {
    state.scenario_error = e.what();
    return false;
  }
  state.scenario = std::move(edited);
  state.scenario_edited = true;
  state.scenario_error.clear();
  state.scenario_version = next_scenario_version();
  return true;
}

namespace {

template <class Source>
bool uses(const Scenario& s) {
  return std::holds_alternative<Source>(s.length_source);
}
template <class Source>
Source& source(Scenario& s) {
  return std::get<Source>(s.length_source);
}
template <class Source>
const Source& source(const Scenario& s) {
  return std::get<Source>(s.length_source);
}
bool always(const Scenario&) { return true; }
int as_int(double v) { return static_cast<int>(std::lround(v)); }

const std::array<ScenarioField, 12> fields = {{
    {"documents", 1, 1024, "%.0f", true, uses<UniformLengths>,
     [](const Scenario& s) -> double { return source<UniformLengths>(s).count; },
     [](Scenario& s, double v) { source<UniformLengths>(s).count = as_int(v); }},
    {"document length", 1, 65536, "%.0f", true, uses<UniformLengths>,
     [](const Scenario& s) -> double { return source<UniformLengths>(s).length; },
     [](Scenario& s, double v) { source<UniformLengths>(s).length = as_int(v); }},
    {"median length", 1, 65536, "%.0f", true, uses<LogNormalLengths>,
     [](const Scenario& s) { return source<LogNormalLengths>(s).median; },
     [](Scenario& s, double v) { source<LogNormalLengths>(s).median = v; }},
    {"sigma", 0.05, 3, "%.2f", false, uses<LogNormalLengths>,
     [](const Scenario& s) { return source<LogNormalLengths>(s).sigma; },
     [](Scenario& s, double v) { source<LogNormalLengths>(s).sigma = v; }},
    {"shortest", 1, 65536, "%.0f", true, uses<LogNormalLengths>,
     [](const Scenario& s) -> double { return source<LogNormalLengths>(s).min; },
     [](Scenario& s, double v) { source<LogNormalLengths>(s).min = as_int(v); }},
    {"longest", 1, 65536, "%.0f", true, uses<LogNormalLengths>,
     [](const Scenario& s) -> double { return source<LogNormalLengths>(s).max; },
     [](Scenario& s, double v) { source<LogNormalLengths>(s).max = as_int(v); }},
    {"token budget", 64, 1 << 20, "%.0f", true, uses<LogNormalLengths>,
     [](const Scenario& s) -> double { return double(source<LogNormalLengths>(s).token_budget); },
     [](Scenario& s, double v) { source<LogNormalLengths>(s).token_budget = std::llround(v); }},
    {"seed", 1, 1000, "%.0f", false, uses<LogNormalLengths>,
     [](const Scenario& s) -> double { return double(source<LogNormalLengths>(s).seed); },
     [](Scenario& s, double v) { source<LogNormalLengths>(s).seed = std::llround(v); }},
    {"row length", 16, 65536, "%.0f", true, always, [](const Scenario& s) -> double { return s.row_len; },
     [](Scenario& s, double v) { s.row_len = as_int(v); }},
    {"heads", 1, 128, "%.0f", false, always, [](const Scenario& s) -> double { return s.heads; },
     [](Scenario& s, double v) {
       // Keep grouped-query attention valid: kv heads follow when they no longer divide heads.
       s.heads = as_int(v);
       if (s.kv_heads > s.heads || s.heads % s.kv_heads != 0) s.kv_heads = s.heads;
     }},
    {"kv heads", 1, 128, "%.0f", false, always, [](const Scenario& s) -> double { return s.kv_heads; },
     [](Scenario& s, double v) { s.kv_heads = as_int(v); }},
    {"head dim", 16, 256, "%.0f", false, always, [](const Scenario& s) -> double { return s.head_dim; },
     [](Scenario& s, double v) { s.head_dim = as_int(v); }},
}};

}  // namespace

std::span<const ScenarioField> scenario_fields() { return fields; }

std::string length_source_note(const Scenario& s) {
  const auto* l = std::get_if<LogNormalLengths>(&s.length_source);
  if (!l || (l->median <= l->max && l->median >= l->min)) return {};
  const bool above = l->median > l->max;
  const int bound = above ? l->max : l->min;
  const long long at_bound = std::count(s.doc_lengths.begin(), s.doc_lengths.end(), bound);
  return "The median length, " + count_of(std::llround(l->median), "token") + ", is " +
         (above ? "above the longest, " : "below the shortest, ") + count_of(bound, "token") +
         ": draws past it are cut to it (" + std::to_string(at_bound) + " of " +
         count_of(std::ssize(s.doc_lengths), "document") + " are " + count_of(bound, "token") + ").";
}

const ScenarioField* find_scenario_field(std::string_view label) {
  for (const ScenarioField& f : fields)
    if (label == f.label) return &f;
  return nullptr;
}

bool set_field(AppState& state, const ScenarioField& field, double value) {
  if (!field.applies(state.scenario)) return false;
  value = std::clamp(value, field.min, field.max);
  return apply_edit(state, [&](Scenario& s) { field.set(s, value); });
}

bool set_length_source_kind(AppState& state, std::string_view kind) {
  const std::vector<int>& lengths = state.scenario.doc_lengths;
  if (lengths.empty() || kind == length_source_name(state.scenario.length_source)) return false;
  std::vector<int> sorted = lengths;
  std::sort(sorted.begin(), sorted.end());
  const std::int64_t total = state.scenario.total_tokens();
  LengthSource next;
  if (kind == "uniform")
    next = UniformLengths{static_cast<int>(lengths.size()), static_cast<int>(total / std::ssize(lengths))};
  else if (kind == "list")
    next = ListLengths{lengths};
  else if (kind == "lognormal")
    next = LogNormalLengths{double(sorted[sorted.size() / 2]), 1.0, sorted.front(), sorted.back(), total, 1};
  else
    return false;
  return apply_edit(state, [&](Scenario& s) { s.length_source = next; });
}

bool set_length_list(AppState& state, std::string_view text) {
  std::vector<int> lengths;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ',' || text[i] == ' ' || text[i] == '\n' || text[i] == '\t') {
      ++i;
      continue;
    }
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc() || value <= 0) {
      state.scenario_error = "documents.lengths: expected positive integers separated by commas, got \"" +
                             std::string(text.substr(i, 12)) + "\"";
      return false;
    }
    lengths.push_back(value);
    i = static_cast<std::size_t>(end - text.data());
  }
  if (lengths.empty()) {
    state.scenario_error = "documents.lengths: expected at least one length";
    return false;
  }
  return apply_edit(state, [&](Scenario& s) { s.length_source = ListLengths{lengths}; });
}

std::string length_list_text(const Scenario& scenario) {
  std::string text;
  for (int len : scenario.doc_lengths) text += (text.empty() ? "" : ", ") + std::to_string(len);
  return text;
}

bool set_pad_to(AppState& state, std::optional<int> pad_to) {
  return apply_edit(state, [&](Scenario& s) { s.pad_to = pad_to; });
}
bool set_packing(AppState& state, PackingPolicy policy) {
  return apply_edit(state, [&](Scenario& s) { s.packing = policy; });
}
bool set_causal(AppState& state, bool causal) {
  return apply_edit(state, [&](Scenario& s) {
    s.causal = causal;
    if (s.window.any()) s.window = {std::max(s.window.left, 1), 0};
  });
}
bool set_window(AppState& state, Window window) {
  return apply_edit(state, [&](Scenario& s) { s.window = window; });
}
bool set_dtype(AppState& state, DType dtype) {
  return apply_edit(state, [&](Scenario& s) { s.dtype = dtype; });
}

bool set_tile(AppState& state, TileShape tile) {
  if (tile.rows <= 0 || tile.cols <= 0) return false;
  state.tile = tile;
  state.scenario_version = next_scenario_version();
  return true;
}

void refresh_shipped_scenarios(AppState& state) {
  state.shipped_scenarios.clear();
  state.measured_as_version = ~std::uint64_t{0};
  try {
    state.shipped_scenarios = list_scenario_entries();
  } catch (const std::exception& e) {
    state.scenario_error = e.what();
  }
}

bool open_scenario(AppState& state, std::string_view name_or_path) {
  try {
    Scenario opened = load_scenario(name_or_path);
    check_fits_gui(opened);
    state.scenario = std::move(opened);
    state.scenario_edited = false;
  } catch (const std::exception& e) {
    state.scenario_error = e.what();
    return false;
  }
  state.scenario_error.clear();
  state.save_path = "my-" + state.scenario.name + ".toml";
  state.length_list_edit.clear();  // the lengths text of the scenario left behind
  state.mask_viewports = {};
  state.scenario_version = next_scenario_version();
  return true;
}

bool save_scenario_as(AppState& state, const std::string& path, std::string& message) {
  try {
    save_scenario(state.scenario, path);
  } catch (const std::exception& e) {
    message = e.what();
    return false;
  }
  message = "saved " + path + "; the CLI reads it: attnlab model " + path;
  return true;
}

}  // namespace attnlab::gui
