#pragma once
// Each view is a function of the app state, drawn every frame (immediate mode, as Dear ImGui's demo).
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// Says why the scenario cannot be laid out, if it cannot; the views that draw the model stop there.
bool show_model_error(AppState& state);

// The forward / backward choice the Costs and Timings views share (AppState::pass).
void show_pass_choice(AppState& state);

// One implementation's mask picture with its caption, filling the current region:
// the Masks view shows four, the Scenario view packed and varlen beside its sliders.
void show_mask_panel(AppState& state, Implementation impl);

void show_story_view(AppState& state);  // the guided Story, first (story_view.cpp)
void show_scenario_view(AppState& state);
void show_mask_view(AppState& state);
void show_costs_view(AppState& state);
void show_backward_costs(const ScenarioModel& model);  // the Costs view's backward pass (costs_backward_view.cpp)
void show_timings_view(AppState& state);
void show_walkthrough_view(AppState& state);
void show_step_view(AppState& state);              // the training step: from scores to step time (step_view.cpp)
void show_context_parallel_view(AppState& state);  // ranks of a context-parallel split (cp_view.cpp)

}  // namespace attnlab::gui
