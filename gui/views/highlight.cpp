#include "gui/views/highlight.hpp"

#include <imgui.h>

namespace attnlab::gui {

namespace {
constexpr ImU32 frame_color = IM_COL32(255, 205, 60, 255);  // the call-outs' yellow
}

bool is_highlighted(const AppState& state, Figure figure) {
  return figure != Figure::none && state.highlight == figure;
}

void frame_if_highlighted(const AppState& state, Figure figure) {
  if (!is_highlighted(state, figure)) return;
  if (state.story_scroll_frames > 0) ImGui::SetScrollHereY(0.2f);
  // On the item's own edge, in its window's draw list: clipped as the figure is when scrolled.
  ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), frame_color, 4, 0, 3);
}

void scroll_here_if_step_opened(const AppState& state) {
  if (state.story_scroll_frames > 0) ImGui::SetScrollHereY(0.9f);
}

unsigned int highlighted_row_color() { return IM_COL32(110, 85, 20, 255); }

}  // namespace attnlab::gui
