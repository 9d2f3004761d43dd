#pragma once
// When a measured run stands for a scenario: the run computed the same cells. Results
// rows name the shipped scenario they ran, and a scenario edited in the GUI may keep
// that name while its documents change, so every view and command matches runs through
// the cells their scenario computes, never through a name alone. A row says its own mask
// and shape (causal, window_left and window_right, head dim, dtype, heads per K/V head,
// tokens); the documents come from the scenario file its name leads to, looked up only for a
// row whose own columns agree, and kept as its rows' shapes alone: no command resolves every
// scenario of the folder to match a run.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/results_files.hpp"
#include "core/layout/implementation.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

// A flash kernel running `a` under `ia` and one running `b` under `ib` compute the same
// cells: the same rows (extent and tokens of each, in any order), the same window as it acts
// on them (one that covers every row counts as none), causal mask, head dim, dtype, tokens
// and heads per K/V head. Packed rows with bleed compute what varlen computes for documents
// of the rows' lengths, so a run of one may stand for the other.
bool computes_same_cells(const Scenario& a, Implementation ia, const Scenario& b, Implementation ib);

// The rows a flash kernel runs for a scenario's documents under one implementation, each one
// causal span: (extent, tokens, how many rows), sorted. At most a few thousand entries whatever
// the documents (k distinct lengths hold at least k(k + 1) / 2 tokens).
struct RowShapes {
  std::vector<std::tuple<int, int, std::int64_t>> counted;
  int longest = 0;  // the longest row's extent
  bool operator==(const RowShapes& other) const { return counted == other.counted; }
};
// naive's rows are padded's.
RowShapes row_shapes(const Scenario& s, Implementation impl);

// What a scenario computes, made once (a target matched against many rows): its shape and mask,
// and its rows under each implementation.
struct ScenarioCells {
  explicit ScenarioCells(const Scenario& s);
  bool causal = true;
  Window window;
  int head_dim = 0, heads = 0, kv_heads = 0;
  DType dtype = DType::bf16;
  std::int64_t tokens = 0;
  std::array<RowShapes, 4> rows;  // [Implementation]; naive's are padded's
};

// Where a results row's scenario name leads: the scenario its file defines, if one does.
using ScenarioLookup = std::function<std::optional<Scenario>(const std::string& name)>;
// A plain name (no folder, no ".toml", as results rows write them) of scenarios_folder(); none
// for any other text or a file that cannot be read: a results cell never opens another path.
std::optional<Scenario> scenario_named(const std::string& name);
// The first of `defined` of that name (a test's scenarios, held by the caller).
ScenarioLookup lookup_in(std::span<const Scenario> defined);

// Which measured rows computed a scenario's cells. The scenarios rows name are looked up once
// each and kept as their row shapes alone, at most max_held of them (then forgotten and looked
// up again): memory stays bounded whatever the rows name. What it holds is a cache: asking does
// not change an answer, so the questions are const (one thread at a time).
class RunCells {
 public:
  RunCells() : RunCells(scenario_named) {}  // names in scenarios_folder()
  explicit RunCells(ScenarioLookup lookup) : lookup_(std::move(lookup)) {}
  static constexpr std::size_t max_held = 64;

  // The run of `row` computed the cells `target` computes under `impl`: the row's own columns
  // agree (a row without window columns never does), and the rows of the scenario it names, under
  // its implementation, are the target's.
  bool computes(const ScenarioCells& target, Implementation impl, const ResultRow& row) const;
  // The same, taking the row's run as one of implementation `ran` (measured_as asks it of each).
  bool computes(const ScenarioCells& target, Implementation impl, const ResultRow& row, Implementation ran) const;

 private:
  struct Named {
    std::array<RowShapes, 4> rows;
    std::int64_t tokens = 0;
  };
  const std::optional<Named>& named(const std::string& name) const;

  ScenarioLookup lookup_;
  mutable std::map<std::string, std::optional<Named>> held_;
};

// The name under which loaded rows describe `s`: among the scenarios the rows of s's own
// dtype, heads, K/V heads, head dim and causal mask name (s's own name first, then in file
// order), the first whose rows computed s's cells in every implementation. None for an edit
// no measured scenario matches.
std::optional<std::string> measured_as(const Scenario& s, const LoadedResults& results, const RunCells& cells);

}  // namespace attnlab
