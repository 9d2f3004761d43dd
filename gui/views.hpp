#pragma once
// Each view is a function of the app state, drawn every frame (STYLE.md: imgui_demo).
#include "gui/app_state.hpp"

namespace attnlab::gui {

// Says why the scenario cannot be laid out, if it cannot; the views that draw the model stop there.
bool show_model_error(AppState& state);

void show_scenario_view(AppState& state);
void show_mask_view(AppState& state);
void show_costs_view(AppState& state);
void show_timings_view(AppState& state);
void show_walkthrough_view(AppState& state);

}  // namespace attnlab::gui
