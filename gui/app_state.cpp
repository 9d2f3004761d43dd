#include "gui/app_state.hpp"

#include "core/scenario_file.hpp"
#include "gui/scenario_edits.hpp"

namespace attnlab::gui {

const char* view_name(View v) {
  switch (v) {
    case View::scenario: return "scenario";
    case View::masks: return "masks";
    case View::costs: return "costs";
    case View::timings: return "timings";
    case View::walkthrough: return "walkthrough";
  }
  return "?";
}

const char* view_title(View v) {
  switch (v) {
    case View::scenario: return "Scenario";
    case View::masks: return "Masks";
    case View::costs: return "Costs";
    case View::timings: return "Timings";
    case View::walkthrough: return "Flash walkthrough";
  }
  return "?";
}

std::optional<View> parse_view(std::string_view name) {
  for (View v : all_views)
    if (name == view_name(v)) return v;
  return std::nullopt;
}

const ScenarioModel& AppState::model() {
  if (!model_ || model_version_ != scenario_version) {
    model_ = std::make_shared<const ScenarioModel>(build_model(scenario, tile));
    model_version_ = scenario_version;
  }
  return *model_;
}

AppState make_app_state(std::string_view scenario_name_or_path, const std::string& results_folder) {
  AppState state;
  state.scenario = load_scenario(scenario_name_or_path.empty() ? default_scenario_name : scenario_name_or_path);
  check_fits_gui(state.scenario);
  state.save_path = "my-" + state.scenario.name + ".toml";
  refresh_shipped_scenarios(state);
  load_results_folder(state.results, results_folder);
  return state;
}

}  // namespace attnlab::gui
