#pragma once
// The one hidden window the render tests share (made before the first test, in
// views_render.cpp's main), and the small readings of its pictures they all use.
#include <imgui_internal.h>  // the tab bar's layout

#include "core/scenario/scenario_file.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/mask_picture/cell_colors.hpp"
#include "gui/platform/gui_window.hpp"

namespace attnlab::gui {

GuiWindow& hidden_window();

// A view of a shipped scenario, without results.
inline AppState state_on(const char* scenario, View view) {
  AppState state;
  state.scenario = load_scenario(scenario);
  refresh_shipped_scenarios(state);  // the Scenario view lists the shipped names
  state.view = view;
  state.view_requested = true;
  return state;
}

inline Rgb rgb_at(const Image& image, int x, int y) {
  const auto p = image.pixel(x, y);
  return {p[0], p[1], p[2]};
}

inline Rgb rgb_of(ImU32 c) { return Rgb{std::uint8_t(c), std::uint8_t(c >> 8), std::uint8_t(c >> 16)}; }

inline long long pixels_of(const Image& image, Rgb color) {
  long long n = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) n += rgb_at(image, x, y) == color;
  return n;
}

// The window's one tab bar, as the last frame laid it out.
inline ImGuiTabBar* views_tab_bar() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int n = 0; n < g.TabBars.GetMapSize(); ++n)
    if (ImGuiTabBar* bar = g.TabBars.TryGetMapData(n)) return bar;
  return nullptr;
}

// The tables the last frame drew.
inline std::vector<const ImGuiTable*> tables_of_last_frame() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  std::vector<const ImGuiTable*> tables;
  for (int n = 0; n < g.Tables.GetMapSize(); ++n)
    if (const ImGuiTable* t = g.Tables.TryGetMapData(n); t && t->LastFrameActive == g.FrameCount) tables.push_back(t);
  return tables;
}

}  // namespace attnlab::gui
