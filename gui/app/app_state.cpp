#include "gui/app/app_state.hpp"

#include <chrono>

#include "core/scenario/scenario_file.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/app/scenario_edits.hpp"

namespace attnlab::gui {

const ScenarioModel& AppState::model() {
  if (next_model_.valid() && next_model_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    model_ = std::make_shared<const ScenarioModel>(next_model_.get());
  if (model_is_current()) return *model_;
  if (!build_model_in_background || !model_) {
    if (next_model_.valid()) next_model_.wait();  // a stale build in flight: let it end, then drop it
    next_model_ = {};
    model_ = std::make_shared<const ScenarioModel>(build_model(scenario, tile, scenario_version));
  } else if (!next_model_.valid()) {
    // One build at a time; edits made meanwhile are picked up by the next one.
    next_model_ = std::async(std::launch::async, build_model, scenario, tile, scenario_version);
  }
  return *model_;
}

AppState make_app_state(std::string_view scenario_name_or_path, const std::string& results_folder) {
  AppState state;
  state.scenario = load_scenario(scenario_name_or_path.empty() ? default_scenario_name : scenario_name_or_path);
  check_fits_gui(state.scenario);
  state.save_path = "my-" + state.scenario.name + ".toml";
  refresh_shipped_scenarios(state);
  state.results.load_folder(results_folder);
  set_tile(state, kernel_tile_or_default(state));  // the model at the tile of the kernel the views show
  return state;
}

}  // namespace attnlab::gui
