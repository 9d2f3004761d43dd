#include "gui/views/highlight.hpp"

#include <imgui.h>

namespace attnlab::gui {

namespace {
constexpr ImU32 frame_color = IM_COL32(255, 205, 60, 255);  // the call-outs' yellow
constexpr float frame_gap = 2.5f;                           // between the frame's path and the item
}  // namespace

bool is_highlighted(const AppState& state, Figure figure) {
  return figure != Figure::none && state.highlight == figure;
}

void frame_if_highlighted(const AppState& state, Figure figure) {
  if (!is_highlighted(state, figure)) return;
  if (state.story_scroll_frames > 0) ImGui::SetScrollHereY(0.2f);
  // Just outside the item's edge, so the 3 px stroke never crosses its first or last line of text; in
  // its window's draw list: clipped as the figure is when scrolled.
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  ImGui::GetWindowDrawList()->AddRect(ImVec2(min.x - frame_gap, min.y - frame_gap),
                                      ImVec2(max.x + frame_gap, max.y + frame_gap), frame_color, 4, 0, 3);
}

unsigned int highlighted_row_color() { return IM_COL32(110, 85, 20, 255); }

}  // namespace attnlab::gui
