#include "gui/widgets/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/number_format.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

template <class T>
std::vector<std::pair<double, double>> column_ranges(std::span<const T> values, int columns) {
  std::vector<std::pair<double, double>> out;
  const std::size_t n = values.size(), c = std::size_t(std::max(columns, 1));
  out.reserve(c);
  for (std::size_t i = 0; i < c; ++i) {
    double lo = NAN, hi = NAN;
    for (std::size_t j = i * n / c; j < (i + 1) * n / c; ++j) {
      const double v = double(values[j]);
      if (!std::isfinite(v)) continue;
      lo = std::isnan(lo) ? v : std::min(lo, v);
      hi = std::isnan(hi) ? v : std::max(hi, v);
    }
    out.emplace_back(lo, hi);
  }
  return out;
}
template std::vector<std::pair<double, double>> column_ranges(std::span<const double>, int);
template std::vector<std::pair<double, double>> column_ranges(std::span<const int>, int);

namespace {

template <class T>
void plot(const PlotSpec& spec, std::span<const T> values, ImVec2 size) {
  wrapped_text("%s", spec.title.c_str());
  double lo = spec.bars ? 0 : INFINITY, hi = spec.bars ? 0 : -INFINITY;
  for (const T value : values)
    if (const double v = double(value); std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
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
  const std::size_t n = values.size();
  const std::string first = format_axis(spec.x_first), last = format_axis(spec.x_first + double(n > 0 ? n - 1 : 0));
  draw->AddText(ImVec2(p0.x, p1.y + 2), text, first.c_str());
  draw->AddText(ImVec2(p1.x - ImGui::CalcTextSize(last.c_str()).x, p1.y + 2), text, last.c_str());
  draw->AddText(ImVec2((p0.x + p1.x - ImGui::CalcTextSize(spec.x_label.c_str()).x) / 2, p1.y + 2), faint,
                spec.x_label.c_str());
  if (n == 0) return;
  const auto y_of = [&](double v) { return p1.y - float((v - lo) / (hi - lo)) * (p1.y - p0.y - 1); };
  const ImU32 color = ImGui::GetColorU32(spec.bars ? ImGuiCol_PlotHistogram : ImGuiCol_PlotLines);
  const int columns = std::max(1, int(p1.x - p0.x));
  if (n > std::size_t(columns)) {  // one column of pixels per run of values: its bar, or its range as a stroke
    const std::vector<std::pair<double, double>> ranges = column_ranges(values, columns);
    for (int c = 0; c < columns; ++c) {
      const auto [least, most] = ranges[std::size_t(c)];
      if (std::isnan(most)) continue;
      const float x = p0.x + float(c);
      draw->AddRectFilled(ImVec2(x, y_of(most) - (spec.bars ? 0 : 1)),
                          ImVec2(x + 1, spec.bars ? p1.y : y_of(least) + 1), color);
    }
    return;
  }
  const float w = (p1.x - p0.x) / float(spec.bars ? n : std::max<std::size_t>(1, n - 1));
  if (spec.bars) {
    for (std::size_t i = 0; i < n; ++i)
      if (std::isfinite(double(values[i])))
        draw->AddRectFilled(ImVec2(p0.x + w * float(i), y_of(double(values[i]))),
                            ImVec2(std::max(p0.x + w * float(i) + 1, p0.x + w * float(i + 1) - (w > 4 ? 1 : 0)), p1.y),
                            color);
    return;
  }
  for (std::size_t i = 0; i + 1 < n; ++i)
    if (std::isfinite(double(values[i])) && std::isfinite(double(values[i + 1])))
      draw->AddLine(ImVec2(p0.x + w * float(i), y_of(double(values[i]))),
                    ImVec2(p0.x + w * float(i + 1), y_of(double(values[i + 1]))), color, 1.5f);
  if (n == 1 && std::isfinite(double(values[0])))
    draw->AddCircleFilled(ImVec2(p0.x, y_of(double(values[0]))), 2, color);
}

}  // namespace

void draw_plot(const PlotSpec& spec, std::span<const double> values, ImVec2 size) { plot(spec, values, size); }
void draw_plot(const PlotSpec& spec, std::span<const int> values, ImVec2 size) { plot(spec, values, size); }

}  // namespace attnlab::gui
