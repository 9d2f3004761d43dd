#pragma once
// The Story's words: one paragraph per step (gui/app/story_steps.hpp), every figure in it
// taken from the model of the step's scenario and from the loaded results, never typed in.
// Plain strings, so the tests read what the Story says.
#include <array>
#include <string>

#include "analysis/step_times.hpp"
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// The paragraph of `step` for the state's scenario (the step's, once opened).
std::string story_paragraph(AppState& state, int step);

}  // namespace attnlab::gui
