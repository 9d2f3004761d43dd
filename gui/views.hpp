#pragma once
// Each view is a function of the app state, drawn every frame (STYLE.md: imgui_demo).
#include "gui/app_state.hpp"

namespace attnlab::gui {

void show_scenario_view(AppState& state);
void show_mask_view(AppState& state);
void show_costs_view(AppState& state);
void show_timings_view(AppState& state);
void show_walkthrough_view(AppState& state);

}  // namespace attnlab::gui
