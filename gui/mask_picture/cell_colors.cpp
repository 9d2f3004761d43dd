#include "gui/mask_picture/cell_colors.hpp"

namespace attnlab::gui {

Rgb paint_rgb(PaintClass c) {
  switch (c) {
    case PaintClass::useful: return {58, 170, 92};          // green: the work we want
    case PaintClass::causal_masked: return {66, 110, 190};  // blue: computed, then masked by causality
    case PaintClass::padding: return {226, 170, 40};        // amber: pad queries and keys
    case PaintClass::bleed: return {214, 52, 52};           // red: another document leaking in
    case PaintClass::window_masked: return {150, 96, 200};  // violet: computed, then masked by the sliding window
    case PaintClass::not_visited: return {72, 72, 84};      // grey: a tile the kernel skips
    case PaintClass::outside: return {22, 22, 26};          // near black: no score matrix between rows
  }
  return {255, 0, 255};
}

ImU32 paint_color(PaintClass c, std::uint8_t alpha) {
  const Rgb rgb = paint_rgb(c);
  return IM_COL32(rgb[0], rgb[1], rgb[2], alpha);
}

const char* paint_class_label(PaintClass c) {
  return c == PaintClass::outside ? "outside" : cell_kind_name(static_cast<CellKind>(c));
}

void draw_cell_kind_legend() {
  const float side = ImGui::GetTextLineHeight();
  for (int c = 0; c < cell_kind_count; ++c) {
    const char* label = paint_class_label(static_cast<PaintClass>(c));
    if (c > 0) {  // on this line where the swatch and its name fit, else on the next
      ImGui::SameLine(0, side * 1.5f);
      if (ImGui::GetContentRegionAvail().x < side + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(label).x)
        ImGui::NewLine();
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + side, at.y + side),
                                              paint_color(static_cast<PaintClass>(c)));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(label);
  }
}

}  // namespace attnlab::gui
