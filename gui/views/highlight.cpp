#include "gui/views/highlight.hpp"

#include <imgui.h>

#include <algorithm>

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
  // The figure's top, a little below the window's: a figure taller than its window starts in sight.
  if (state.story_scroll_frames > 0)
    ImGui::SetScrollFromPosY(ImGui::GetItemRectMin().y - ImGui::GetWindowPos().y - ImGui::GetTextLineHeight(), 0.0f);
  // Just outside the item's edge, so the 3 px stroke never crosses its first or last line of text; in
  // its window's draw list: clipped as the figure is when scrolled.
  // An item filling its window (a mask panel) keeps its frame inside the window's clip, where the gap would hide it.
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  const ImVec2 clip_min = draw->GetClipRectMin(), clip_max = draw->GetClipRectMax();
  const float inset = 1.5f;  // half the stroke
  const auto outward = [&](float edge, float out, float clip_edge, float inside_clip) {
    const bool edge_in_sight = inside_clip > 0 ? edge >= clip_edge : edge <= clip_edge;
    const float pushed = edge + out;
    if (!edge_in_sight) return pushed;
    return inside_clip > 0 ? std::max(pushed, clip_edge + inset) : std::min(pushed, clip_edge - inset);
  };
  draw->AddRect(ImVec2(outward(min.x, -frame_gap, clip_min.x, 1), outward(min.y, -frame_gap, clip_min.y, 1)),
                ImVec2(outward(max.x, frame_gap, clip_max.x, -1), outward(max.y, frame_gap, clip_max.y, -1)),
                frame_color, 4, 0, 3);
}

unsigned int highlighted_row_color() { return IM_COL32(110, 85, 20, 255); }

}  // namespace attnlab::gui
