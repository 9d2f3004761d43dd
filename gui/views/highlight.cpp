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
  const float pad = 3;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  ImGui::GetForegroundDrawList()->AddRect(ImVec2(a.x - pad, a.y - pad), ImVec2(b.x + pad, b.y + pad), frame_color, 4, 0,
                                          3);
}

unsigned int highlighted_row_color() { return IM_COL32(110, 85, 20, 255); }

}  // namespace attnlab::gui
