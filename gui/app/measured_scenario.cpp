#include "gui/app/measured_scenario.hpp"

#include "analysis/same_cells.hpp"

namespace attnlab::gui {

MeasuredRuns measured_runs(const AppState& state) {
  MeasuredRuns runs;
  for (const ResultsFile& f : state.results.loaded().files)
    runs.rows.insert(runs.rows.end(), f.rows.begin(), f.rows.end());
  return runs;
}

const std::optional<std::string>& measured_scenario(AppState& state) {
  const std::uint64_t results = state.results.version();
  if (state.measured_as_version != state.scenario_version || state.measured_as_results != results) {
    state.measured_as = measured_as(state.scenario, state.results.loaded(), RunCells());
    state.measured_as_version = state.scenario_version;
    state.measured_as_results = results;
  }
  return state.measured_as;
}

std::optional<Configuration> measured_configuration(AppState& state, const ScenarioModel& model, Pass pass) {
  const std::optional<std::string>& name = measured_scenario(state);
  if (!name || model.version != state.scenario_version) return std::nullopt;
  Configuration c = own_configuration(model.scenario, pass);
  c.scenario = *name;
  return c;
}

}  // namespace attnlab::gui
