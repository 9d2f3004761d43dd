#include "gui/views/chain_figure.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/number_format.hpp"
#include "gui/views/highlight.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

unsigned int evidence_color(LinkEvidence evidence) {
  switch (evidence) {
    case LinkEvidence::counted: return IM_COL32(140, 153, 190, 255);
    case LinkEvidence::predicted: return IM_COL32(205, 140, 70, 255);
    case LinkEvidence::measured: return IM_COL32(235, 235, 245, 255);
    case LinkEvidence::reported: return IM_COL32(150, 120, 200, 255);
  }
  return IM_COL32(200, 200, 200, 255);
}

namespace {

// A link's number on its scale: a ratio as it is, a percent as its fraction, a time in µs.
std::optional<double> number_of(const ChainBar& b) {
  if (!b.link->number || !std::isfinite(*b.link->number)) return std::nullopt;
  return *b.link->number;
}

const char* unit_title(LinkUnit unit) {
  switch (unit) {
    case LinkUnit::ratio: return "packed / varlen, log scale";
    case LinkUnit::percent: return "share or saving of the step, log scale (bars only for values above 0)";
    case LinkUnit::microseconds: return "time, log scale";
  }
  return "";
}

std::string tick_text(double v, LinkUnit unit) {
  switch (unit) {
    case LinkUnit::ratio: return format_axis(v) + "x";
    case LinkUnit::percent: return format_axis(100 * v) + "%";
    case LinkUnit::microseconds: return format_axis(v) + " \xC2\xB5s";
  }
  return "";
}

// Each unit's log axis: whole decades around its positive values (ratios from 1x at most).
struct Axis {
  double lo = 1, hi = 10;  // decades
};

std::map<LinkUnit, Axis> axes_of(const std::vector<ChainBar>& bars) {
  std::map<LinkUnit, std::pair<double, double>> range;
  for (const ChainBar& b : bars) {
    const std::optional<double> v = number_of(b);
    if (!v || !(*v > 0)) continue;
    auto [at, added] = range.try_emplace(b.unit, *v, *v);
    at->second.first = std::min(at->second.first, *v);
    at->second.second = std::max(at->second.second, *v);
  }
  std::map<LinkUnit, Axis> axes;
  for (const auto& [unit, r] : range) {
    const double lo = unit == LinkUnit::ratio ? std::min(1.0, r.first) : r.first;
    Axis a{std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(r.second)))};
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    if (unit == LinkUnit::percent) a.lo = std::max(a.lo, 1e-4);  // 0.01%: a smaller share is drawn as no bar
    axes[unit] = a;
  }
  return axes;
}

float x_of(double v, const Axis& a, float x0, float width) {
  const double t = (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
  return x0 + width * float(std::clamp(t, 0.0, 1.0));
}

void draw_legend() {
  const float side = ImGui::GetTextLineHeight() * 0.8f;
  bool first = true;
  for (LinkEvidence b :
       {LinkEvidence::counted, LinkEvidence::predicted, LinkEvidence::measured, LinkEvidence::reported}) {
    if (!first) ImGui::SameLine(0, side);
    first = false;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + side * 0.15f),
                                              ImVec2(at.x + side, at.y + side * 1.15f), evidence_color(b));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(link_evidence_name(b));
  }
}

}  // namespace

void draw_chain_figure(const std::vector<ChainBar>& bars, const std::function<bool(const ChainBar&)>& framed,
                       ScrollTo scroll) {
  if (bars.empty()) return;
  draw_legend();
  const std::map<LinkUnit, Axis> axes = axes_of(bars);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float width = ImGui::GetContentRegionAvail().x, line = ImGui::GetTextLineHeight();
  const auto measure = [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; };
  float label_width = 0, value_width = ImGui::CalcTextSize("not measured").x;
  for (const ChainBar& b : bars) {
    label_width = std::max(label_width, ImGui::CalcTextSize(b.link->label.c_str()).x);
    value_width = std::max(value_width, ImGui::CalcTextSize(b.link->value.c_str()).x);
  }
  label_width = std::min(label_width, width * 0.34f);
  const float gap = style.ItemSpacing.x;
  const float rest = width - label_width - value_width - 3 * gap;
  const float bar_width = std::max(line * 4, rest * 0.5f), source_width = std::max(line * 6, rest - bar_width);
  const float bar_x = label_width + gap, value_x = bar_x + bar_width + gap, source_x = value_x + value_width + gap;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 faint = IM_COL32(255, 255, 255, 30), text = ImGui::GetColorU32(ImGuiCol_Text),
              dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const auto last_framed =
      std::find_if(bars.rbegin(), bars.rend(), [&](const ChainBar& b) { return framed && framed(b); });
  bool scrolled = false;
  std::optional<LinkUnit> unit_shown;
  for (const ChainBar& b : bars) {
    const Axis axis = axes.count(b.unit) ? axes.at(b.unit) : Axis{};
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (b.unit != unit_shown) {  // the scale's title and its decades, where the unit changes
      unit_shown = b.unit;
      draw->AddText(origin, dim, unit_title(b.unit));
      float last_end = -INFINITY;  // a tick label that would touch the previous one is left out
      for (double v = axis.lo; v <= axis.hi * 1.0001; v *= 10) {
        const std::string tick = tick_text(v, b.unit);
        const float x = origin.x + x_of(v, axis, bar_x, bar_width);
        const float w = ImGui::CalcTextSize(tick.c_str()).x;
        const float tick_x = std::clamp(x - w / 2, origin.x + bar_x, origin.x + bar_x + bar_width - w);
        if (tick_x < last_end + line * 0.5f) continue;
        draw->AddText(ImVec2(tick_x, origin.y + line), dim, tick.c_str());
        last_end = tick_x + w;
      }
      ImGui::Dummy(ImVec2(width, line * 2 + style.ItemSpacing.y));
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const std::vector<std::string> label = wrap_at_spaces(b.link->label, label_width, measure);
    const std::string source =
        std::string(link_evidence_name(b.link->evidence)) + (b.link->source.empty() ? "" : ": " + b.link->source);
    const std::vector<std::string> sources = wrap_at_spaces(source, source_width, measure);
    const float height = float(std::max(label.size(), sources.size())) * line;
    const bool frame = framed && framed(b);
    if (frame) {
      draw->AddRectFilled(ImVec2(at.x, at.y - 1), ImVec2(at.x + width, at.y + height + 1), highlighted_row_color());
      if (scroll == ScrollTo::first_framed && !scrolled) ImGui::SetScrollHereY(0.15f);
      if (scroll == ScrollTo::last_framed && &b == &*last_framed) ImGui::SetScrollHereY(0.85f);
      scrolled = true;
    }
    for (std::size_t i = 0; i < label.size(); ++i)
      draw->AddText(ImVec2(at.x, at.y + float(i) * line), text, label[i].c_str());
    for (double v = axis.lo; v <= axis.hi * 1.0001; v *= 10) {
      const float x = at.x + x_of(v, axis, bar_x, bar_width);
      draw->AddLine(ImVec2(x, at.y), ImVec2(x, at.y + height), faint);
    }
    const float bar_height = line * 0.7f, y = at.y + (line - bar_height) / 2;
    const std::optional<double> number = number_of(b);
    if (number && *number > axis.lo)
      draw->AddRectFilled(ImVec2(at.x + bar_x, y), ImVec2(at.x + x_of(*number, axis, bar_x, bar_width), y + bar_height),
                          evidence_color(b.link->evidence));
    draw->AddText(ImVec2(at.x + value_x, at.y), number ? text : dim, b.link->value.c_str());
    for (std::size_t i = 0; i < sources.size(); ++i)
      draw->AddText(ImVec2(at.x + source_x, at.y + float(i) * line), dim, sources[i].c_str());
    ImGui::InvisibleButton(("##link" + std::to_string(&b - bars.data())).c_str(), ImVec2(width, height));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: %s\n%s", b.link->label.c_str(), b.link->value.c_str(), b.link->how.c_str());
  }
}

}  // namespace attnlab::gui
