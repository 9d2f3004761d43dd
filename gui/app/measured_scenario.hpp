#pragma once
// Which measured runs describe the scenario being edited: those of the shipped scenario
// that computes the same cells (analysis/same_cells.hpp), whatever the edit is named. The
// one rule of the Costs, Timings and Training step views.
#include <optional>
#include <string>

#include "analysis/primary_runs.hpp"
#include "analysis/step_times.hpp"
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// The loaded rows, and the shipped scenarios as their files define them.
MeasuredRuns measured_runs(const AppState& state);

// The name the results rows of the state's scenario carry: the first scenario the loaded rows
// name that computes its cells in every implementation (analysis/same_cells.hpp, measured_as);
// none for an edit no measured scenario matches. Kept in the state until the scenario or the
// loaded rows change.
const std::optional<std::string>& measured_scenario(AppState& state);

// The configuration whose rows describe `model` (the state's current model, or the one
// still drawn while the next is built) in `pass`: its own dtype, heads and head dim under
// measured_scenario's name; none where no shipped scenario matches, or the model is not
// of the current scenario.
std::optional<Configuration> measured_configuration(AppState& state, const ScenarioModel& model, Pass pass);

}  // namespace attnlab::gui
