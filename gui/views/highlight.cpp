#include "gui/views/highlight.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // the window's parent: the room beside the window

#include <algorithm>

namespace attnlab::gui {

namespace {
constexpr float frame_gap = 2.5f;  // between the frame's path and the item
constexpr float frame_stroke = 3;
static_assert(frame_gap + frame_stroke / 2 + 1 <= frame_reach, "the stroke and its anti-aliased edge");
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
  // its window's draw list: clipped as the figure is when scrolled. Sideways it may reach past its
  // window into the parent's room (the spacing beside a mask panel filling its window); an edge out
  // of sight (scrolled away, or past the parent's room) is drawn just inside the clip.
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImDrawList* draw = window->DrawList;
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  ImVec2 clip_min = draw->GetClipRectMin(), clip_max = draw->GetClipRectMax();
  if (window->ParentWindow) {
    const ImRect room = window->ParentWindow->InnerClipRect;
    clip_min.x = std::min(clip_min.x, std::max(room.Min.x, min.x - frame_reach));
    clip_max.x = std::max(clip_max.x, std::min(room.Max.x, max.x + frame_reach));
  }
  const float inset = frame_stroke / 2;
  const auto outward = [&](float edge, float out, float clip_edge, float inside_clip) {
    const bool edge_in_sight = inside_clip > 0 ? edge >= clip_edge : edge <= clip_edge;
    const float pushed = edge + out;
    if (!edge_in_sight) return pushed;
    return inside_clip > 0 ? std::max(pushed, clip_edge + inset) : std::min(pushed, clip_edge - inset);
  };
  draw->PushClipRect(clip_min, clip_max, false);
  draw->AddRect(ImVec2(outward(min.x, -frame_gap, clip_min.x, 1), outward(min.y, -frame_gap, clip_min.y, 1)),
                ImVec2(outward(max.x, frame_gap, clip_max.x, -1), outward(max.y, frame_gap, clip_max.y, -1)),
                highlight_frame_color(), 4, 0, frame_stroke);
  draw->PopClipRect();
}

unsigned int highlighted_row_color() { return IM_COL32(110, 85, 20, 255); }

unsigned int highlight_frame_color() { return IM_COL32(255, 205, 60, 255); }

}  // namespace attnlab::gui
