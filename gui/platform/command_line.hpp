#pragma once
// Which flags each view reads: a flag the chosen view would ignore is refused in one line
// (exit 2), never dropped in silence.
#include <optional>
#include <string>

#include "gui/app/app_state.hpp"

namespace attnlab::gui {

struct FlagsGiven {
  bool story_step = false, scenario = false, mask_cells = false, pass = false, mouse = false, screenshot = false;
};

// Throws InputError naming the first flag `view` does not read: --story-step (the Story's
// alone), --scenario (every view but the Story, which opens each step's own), --mask-cells
// (the Masks and Scenario views' pictures), --pass (Costs and Timings), --mouse (a screenshot's).
void check_flags_fit_view(View view, const FlagsGiven& given);

// What the window opens on, from the flags once checked.
struct StartOptions {
  View view = View::story;
  int story_step = 1;    // from 1
  std::string scenario;  // empty: the default (the Story: its step's own)
  float text_scale = 1.0f;
  std::optional<int> mask_cells;  // --mask-cells: the pictures start on the first N x N cells
  Pass pass = Pass::fwd;
};

// The state the window opens on: the Story opens its step (with the step's own zoom), any
// other view the scenario asked for. Throws InputError where the scenario cannot be read.
AppState start_state(const StartOptions& options, const std::string& results_folder);

}  // namespace attnlab::gui
