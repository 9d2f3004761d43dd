#pragma once
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// One frame of the whole window: a header (scenario, text size) and a tab per view.
void draw_app(AppState& state);

}  // namespace attnlab::gui
