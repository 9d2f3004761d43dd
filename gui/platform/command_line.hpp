#pragma once
// Which flags each view reads: a flag the chosen view would ignore is refused in one line
// (exit 2), never dropped in silence.
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

struct FlagsGiven {
  bool story_step = false, scenario = false, mask_cells = false, pass = false, mouse = false, screenshot = false;
};

// Throws InputError naming the first flag `view` does not read: --story-step (the Story's
// alone), --scenario (every view but the Story, which opens each step's own), --mask-cells
// (the Masks and Scenario views' pictures), --pass (Costs and Timings), --mouse (a screenshot's).
void check_flags_fit_view(View view, const FlagsGiven& given);

}  // namespace attnlab::gui
