#pragma once
// The Story's frame around the figure a step is about: the view that draws the figure
// asks, and frames it only while the Story shows that step.
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// How far the frame's stroke reaches outside the item it frames (its gap, half its 3 px and the
// anti-aliased edge): a view the Story embeds leaves this much room on either side.
inline constexpr float frame_reach = 5.0f;

bool is_highlighted(const AppState& state, Figure figure);
// Frames the last item (a group: call after EndGroup) when `figure` is the one highlighted,
// and scrolls it into sight in the first frames of the step.
void frame_if_highlighted(const AppState& state, Figure figure);
// A table row's background for a highlighted row (TableSetBgColor's colour).
unsigned int highlighted_row_color();
// The frame's colour: the call-outs' yellow.
unsigned int highlight_frame_color();

}  // namespace attnlab::gui
