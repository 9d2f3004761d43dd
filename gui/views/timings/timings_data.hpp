#pragma once
// What the Timings view shows of the loaded rows: the primary runs of the shape chosen (or
// of every scenario) in the table's order, each row's ratios against our varlen and its
// own family's, each source's ratios and the forward + backward pairs. Derived once per
// change of the rows or of the view's choices (TimingsKey) and kept in the app state:
// grouping a large file into runs costs far more than a frame, so no frame pays it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/pass_pairs.hpp"
#include "analysis/source_ratios.hpp"
#include "gui/app/app_state.hpp"
#include "gui/views/timings/run_names.hpp"

namespace attnlab::gui {

struct TimingsKey {
  std::uint64_t results_version = 0;
  std::optional<Configuration> measured;  // the shipped scenario whose rows describe the one shown; none: no match
  Configuration own;                      // `measured`, or the scenario's own configuration
  bool all_scenarios = false;
  std::string shape;  // ResultsState::shape
  bool padded_equals_varlen = false;
  bool operator==(const TimingsKey&) const = default;
};

// One row of the runs table: its time against our varlen of each kernel column, and against its own family's.
struct TimingsRow {
  std::vector<std::optional<double>> vs_our_varlen;  // one per TimingsData::versus
  std::optional<double> vs_own_varlen;
};

struct TimingsData {
  TimingsKey key;
  std::vector<Configuration> configurations;  // the measured scenario's shapes, its own first
  std::optional<Configuration> shape;         // the shape shown; none: every scenario's rows
  std::vector<MeasuredRun> runs;              // in the table's order
  std::vector<TimingsRow> rows;               // one per run
  Kernels kernels;
  std::vector<std::string> versus;   // the kernels of the "time / varlen" columns (one, maybe "", where none is named)
  std::vector<SourceRatios> ratios;  // each source's own ratios in `shape`; empty for every scenario
  std::vector<PassPair> pairs;       // forward + backward in `shape`, under the backward choice
};

// "bf16 d64 h16": how ResultsState::shape names a shape.
std::string shape_name(const Configuration& c);

TimingsData make_timings_data(const LoadedResults& results, const TimingsKey& key);

// The state's Timings data for `model`, made again only when its key moved.
const TimingsData& timings_data(AppState& state, const ScenarioModel& model);

}  // namespace attnlab::gui
