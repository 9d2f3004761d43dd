#include "gui/views/costs_widgets.hpp"

#include <algorithm>
#include <cfloat>

namespace attnlab::gui {

float bar_label_width() { return ImGui::CalcTextSize("padded  ").x; }

void bar_row(const char* label, float height, float text_x, const std::string& text, float text_scale,
             const std::function<void(ImDrawList*, ImVec2)>& paint) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float label_width = bar_label_width();
  const float line = ImGui::GetTextLineHeight();
  draw->AddText(ImVec2(at.x, at.y + (height - line) / 2), ImGui::GetColorU32(ImGuiCol_Text), label);
  paint(draw, ImVec2(at.x + label_width, at.y));
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize() * text_scale;
  draw->AddText(font, size, ImVec2(at.x + label_width + text_x, at.y + (height - size) / 2),
                ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
  ImGui::Dummy(ImVec2(label_width + text_x + font->CalcTextSizeA(size, FLT_MAX, 0, text.c_str()).x, height));
}

BarPairHeights bar_pair_heights(float height_to_fill) {
  const float line = ImGui::GetTextLineHeight();
  const float pair = std::max(line * 2, height_to_fill / 4 - ImGui::GetStyle().ItemSpacing.y * 2);
  const float thick = std::min(pair * 0.55f, line * 2.6f);
  return {thick, std::max(line * 0.8f, std::min(pair - thick, line * 2.0f))};
}

void text_cell(const std::string& text) {
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(text.c_str());
}

}  // namespace attnlab::gui
