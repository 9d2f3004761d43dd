#include "gui/widgets/plots.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/number_format.hpp"

namespace attnlab::gui {

void draw_plot(const PlotSpec& spec, const std::vector<double>& values, ImVec2 size) {
  wrapped_text("%s", spec.title.c_str());
  double lo = spec.bars ? 0 : INFINITY, hi = spec.bars ? 0 : -INFINITY;
  for (double v : values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(lo <= hi)) lo = 0, hi = 1;  // nothing finite yet
  if (hi == lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.01);
  const std::string top = format_axis(hi), bottom = format_axis(lo);
  const float line = ImGui::GetTextLineHeight();
  const float margin = std::max(ImGui::CalcTextSize(top.c_str()).x, ImGui::CalcTextSize(bottom.c_str()).x) + 6;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 p0(at.x + margin, at.y), p1(at.x + size.x, at.y + size.y - line - 2);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  draw->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg));
  draw->AddLine(ImVec2(p0.x, p0.y), ImVec2(p0.x, p1.y), faint);
  draw->AddLine(ImVec2(p0.x, p1.y), ImVec2(p1.x, p1.y), faint);
  draw->AddText(ImVec2(p0.x - ImGui::CalcTextSize(top.c_str()).x - 4, p0.y), text, top.c_str());
  draw->AddText(ImVec2(p0.x - ImGui::CalcTextSize(bottom.c_str()).x - 4, p1.y - line), text, bottom.c_str());
  const int n = static_cast<int>(values.size());
  const std::string first = format_axis(spec.x_first), last = format_axis(spec.x_first + std::max(0, n - 1));
  draw->AddText(ImVec2(p0.x, p1.y + 2), text, first.c_str());
  draw->AddText(ImVec2(p1.x - ImGui::CalcTextSize(last.c_str()).x, p1.y + 2), text, last.c_str());
  draw->AddText(ImVec2((p0.x + p1.x - ImGui::CalcTextSize(spec.x_label.c_str()).x) / 2, p1.y + 2), faint,
                spec.x_label.c_str());
  if (n == 0) return;
  const float w = (p1.x - p0.x) / float(spec.bars ? n : std::max(1, n - 1));
  const auto y_of = [&](double v) { return p1.y - float((v - lo) / (hi - lo)) * (p1.y - p0.y - 1); };
  const ImU32 color = ImGui::GetColorU32(spec.bars ? ImGuiCol_PlotHistogram : ImGuiCol_PlotLines);
  if (spec.bars) {
    for (int i = 0; i < n; ++i)
      if (std::isfinite(values[i]))
        draw->AddRectFilled(ImVec2(p0.x + w * float(i), y_of(values[i])),
                            ImVec2(std::max(p0.x + w * float(i) + 1, p0.x + w * float(i + 1) - (w > 4 ? 1 : 0)), p1.y),
                            color);
    return;
  }
  for (int i = 0; i + 1 < n; ++i)
    if (std::isfinite(values[i]) && std::isfinite(values[i + 1]))
      draw->AddLine(ImVec2(p0.x + w * float(i), y_of(values[i])), ImVec2(p0.x + w * float(i + 1), y_of(values[i + 1])),
                    color, 1.5f);
  if (n == 1 && std::isfinite(values[0])) draw->AddCircleFilled(ImVec2(p0.x, y_of(values[0])), 2, color);
}

}  // namespace attnlab::gui
