#include "gui/views/timings/roofline_plot.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "analysis/number_format.hpp"
#include "analysis/roofline.hpp"
#include "analysis/source_ratios.hpp"
#include "gui/views/timings/label_placement.hpp"
#include "gui/widgets/implementation_colors.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

constexpr ImU32 neutral = IM_COL32(200, 200, 200, 255);
// Labels are placed against every marker and label (place_labels is quadratic): above this many
// points a frame would pay for it, and no label would fit anyway; the tooltip still names each point.
constexpr std::size_t max_labelled_points = 200;
constexpr ImU32 roof_color = IM_COL32(255, 220, 120, 220);

ImU32 color_of(const ResultRow& r) {
  const auto impl = implementation_of(r.implementation);
  return impl ? implementation_color(*impl) : neutral;
}

// The legend of the roofline: implementation colours, family shapes, our kernels' rings
// (where several are loaded), what filled, hollow and the arrow mean.
void show_roofline_legend(const std::vector<const SourceFamily*>& families, const Kernels& kernels) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float r = ImGui::GetFontSize() * 0.32f, side = ImGui::GetFontSize();
  bool first = true;
  // One swatch and its name, on this line where it fits, else on the next.
  const auto item = [&](MarkerShape shape, ImU32 color, bool filled, const std::string& name, int rings = 0) {
    if (!first) {
      ImGui::SameLine(0, side);
      if (ImGui::GetContentRegionAvail().x < side + 2 + ImGui::CalcTextSize(name.c_str()).x) ImGui::NewLine();
    }
    first = false;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_marker(draw, ImVec2(at.x + side / 2, at.y + ImGui::GetTextLineHeight() / 2), r, shape, color, filled, rings);
    ImGui::Dummy(ImVec2(side, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, 2);
    ImGui::TextUnformatted(name.c_str());
  };
  for (Implementation i : all_implementations)
    item(MarkerShape::circle, implementation_color(i), true, implementation_name(i));
  for (const SourceFamily* f : families) item(family_marker(f), IM_COL32(220, 220, 220, 255), false, f->short_name);
  if (kernels.named())
    for (std::size_t k = 0; k < kernels.ours.size(); ++k)
      item(MarkerShape::circle, IM_COL32(220, 220, 220, 255), true, "ours " + kernels.ours[k], int(k));
  // One line for the legend's marks; what they mean in full under the mouse, so the plot keeps its height.
  note_text("Filled: FLOPs computed; hollow: useful. \"<\": at the least bytes (hover here).");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Filled: FLOPs computed (our rows); hollow: useful FLOPs, joined to the filled one.\nBytes: ncu's where "
        "measured; \"<\": none measured, so placed at the least bytes the pass must move (Q, K, V, O once;\nnaive's "
        "score matrices written and read once): the true point is at or left of it.");
}

// The plot's area and its log-log scales.
struct Frame {
  ImVec2 p0, p1;                                  // the plotting area, top left and bottom right
  double x_lo = 0, x_hi = 4, y_lo = 0, y_hi = 0;  // log10 of the axes' ends
  float sx(double v) const { return p0.x + float((std::log10(v) - x_lo) / (x_hi - x_lo)) * (p1.x - p0.x); }
  float sy(double v) const { return p1.y - float((std::log10(v) - y_lo) / (y_hi - y_lo)) * (p1.y - p0.y); }
  ImVec2 at(const RooflinePoint& p) const { return ImVec2(sx(p.flops_per_byte), sy(p.tflops)); }
};

// log10 ranges: at least 1..10^4 FLOPs per byte and 1 TFLOP/s to twice the roof (or the
// fastest point), wider where a point needs it.
Frame frame_for(const std::vector<RooflinePoint>& points, const std::optional<Ceilings>& ceilings, ImVec2 p0,
                ImVec2 p1) {
  Frame f{p0, p1};
  double top = ceilings ? ceilings->tflops : 1;
  for (const RooflinePoint& p : points) {
    f.x_lo = std::min(f.x_lo, std::floor(std::log10(p.flops_per_byte)));
    f.x_hi = std::max(f.x_hi, std::ceil(std::log10(p.flops_per_byte)));
    f.y_lo = std::min(f.y_lo, std::floor(std::log10(p.tflops)));
    top = std::max(top, p.tflops);
  }
  f.y_hi = std::log10(2 * top);
  return f;
}

void draw_axes(ImDrawList* draw, const Frame& f, float left) {
  const ImU32 axis_text = IM_COL32(200, 200, 200, 255);
  draw->AddRectFilled(f.p0, f.p1, roofline_area_color);
  float last_end = -INFINITY;  // a tick label that would touch the previous one is left out
  for (int e = int(f.x_lo); e <= int(f.x_hi); ++e) {
    const float x = f.sx(std::pow(10.0, e));
    draw->AddLine(ImVec2(x, f.p0.y), ImVec2(x, f.p1.y), IM_COL32(255, 255, 255, 30));
    const std::string label = format_axis(std::pow(10.0, e));
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    const float label_x = std::clamp(x - w / 2, f.p0.x, f.p1.x - w);
    if (label_x < last_end + ImGui::GetFontSize() * 0.5f) continue;
    draw->AddText(ImVec2(label_x, f.p1.y + 2), axis_text, label.c_str());
    last_end = label_x + w;
  }
  for (int e = int(f.y_lo); e <= int(f.y_hi); ++e) {
    const float y = f.sy(std::pow(10.0, e));
    draw->AddLine(ImVec2(f.p0.x, y), ImVec2(f.p1.x, y), IM_COL32(255, 255, 255, 30));
    const std::string label = format_axis(std::pow(10.0, e));
    draw->AddText(ImVec2(f.p0.x - ImGui::CalcTextSize(label.c_str()).x - 6, y - ImGui::GetFontSize() / 2), axis_text,
                  label.c_str());
  }
  const char* x_title = "FLOPs per HBM byte (log)";
  draw->AddText(ImVec2((f.p0.x + f.p1.x - ImGui::CalcTextSize(x_title).x) / 2, f.p1.y + ImGui::GetFontSize() * 1.15f),
                axis_text, x_title);
  draw->AddText(ImVec2(left, f.p0.y), axis_text, "TFLOP/s");
}

// The roof: bandwidth-bound up to the ridge, compute-bound after it.
void draw_roof(ImDrawList* draw, const Frame& f, const Ceilings& c) {
  const double x_first = std::pow(10.0, f.x_lo);
  draw->AddLine(ImVec2(f.sx(x_first), f.sy(c.roof_tflops(x_first))), ImVec2(f.sx(c.ridge()), f.sy(c.tflops)),
                roof_color, 2);
  draw->AddLine(ImVec2(f.sx(c.ridge()), f.sy(c.tflops)), ImVec2(f.sx(std::pow(10.0, f.x_hi)), f.sy(c.tflops)),
                roof_color, 2);
}

// The roof's two labels, each where no marker is (just under the flat roof from the ridge
// rightwards; above the slope from 2 FLOPs per byte upwards), drawn after the markers;
// their boxes are returned for the point labels to keep off.
std::vector<Box> draw_roof_labels(ImDrawList* draw, const Frame& f, const Ceilings& c,
                                  const std::vector<Box>& markers) {
  std::vector<Box> texts;
  const Box area{f.p0.x, f.p0.y, f.p1.x, f.p1.y};
  const auto roof_text = [&](const std::string& text, const std::function<ImVec2(int)>& candidate) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    std::vector<Box> candidates;
    for (int k = 0; k < 12; ++k) {
      const ImVec2 at = candidate(k);
      candidates.push_back({at.x, at.y, at.x + size.x, at.y + size.y});
    }
    std::vector<Box> taken = markers;
    taken.insert(taken.end(), texts.begin(), texts.end());
    if (const std::optional<Box> free = first_free(candidates, taken, area)) {
      draw->AddText(ImVec2(free->x0, free->y0), roof_color, text.c_str());
      texts.push_back(*free);
    }
  };
  char label[64];
  std::snprintf(label, sizeof label, "%.0f TFLOP/s", c.tflops);
  const float step = (f.p1.x - f.sx(c.ridge())) / 12;
  roof_text(label, [&](int k) { return ImVec2(f.sx(c.ridge()) + 6 + k * step, f.sy(c.tflops) + 2); });
  std::snprintf(label, sizeof label, "%.1f TB/s", c.tbps);
  roof_text(label, [&](int k) {
    const double x = 2 * std::pow(c.ridge() / 2, k / 12.0);
    return ImVec2(f.sx(x), f.sy(c.roof_tflops(x)) - ImGui::GetFontSize() * 1.4f);
  });
  return texts;
}

// Each byte floor: a dashed line at its FLOPs per byte from the bottom up to the roof, in its
// implementation's colour, labelled at the bottom; the labels' boxes are returned.
std::vector<Box> draw_byte_floors(ImDrawList* draw, const Frame& f, const Ceilings& c,
                                  const std::vector<ByteFloor>& floors) {
  std::vector<Box> texts;
  for (const ByteFloor& b : floors) {
    const double x = b.floor.flops_per_byte;
    if (!(x > 0)) continue;
    const float sx = f.sx(x), top = f.sy(c.roof_tflops(x));
    const ImU32 color = implementation_color(b.implementation);
    for (float y = f.p1.y; y > top; y -= 8) draw->AddLine(ImVec2(sx, y), ImVec2(sx, std::max(top, y - 4)), color, 1.5f);
    const std::string label = std::string(implementation_name(b.implementation)) + "'s byte floor";
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    const float y = f.p1.y - size.y * float(texts.size() + 1) - 2;
    const Box right{sx + 4, y, sx + 4 + size.x, y + size.y}, left{sx - 4 - size.x, y, sx - 4, y + size.y};
    const Box at = right.x1 <= f.p1.x ? right : left;
    draw->AddText(ImVec2(at.x0, at.y0), color, label.c_str());
    texts.push_back(at);
  }
  return texts;
}

// Every point's marker (useful joined to computed for a run that has both), and the box
// each takes, rings and the lower-bound arrow included.
std::vector<Box> draw_markers(ImDrawList* draw, const Frame& f, const std::vector<RooflinePoint>& points,
                              const Kernels& kernels, float radius) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i)
    if (points[i].run == points[i + 1].run)
      draw->AddLine(f.at(points[i]), f.at(points[i + 1]), color_of(*points[i].run->primary.row), 1);
  std::vector<Box> markers;
  for (const RooflinePoint& p : points) {
    const ResultRow& r = *p.run->primary.row;
    const ImU32 color = color_of(r);
    const ImVec2 at = f.at(p);
    const int rings = kernel_rings(kernels.ours, r);
    draw_marker(draw, at, radius, family_marker(family_of(r.source)), color, p.flops == FlopsBasis::computed, rings);
    const float reach = radius * marker_reach(rings);
    float left = at.x - reach;
    if (p.bytes == BytesBasis::lower_bound) {
      const float y = at.y, x = at.x - radius * 1.6f - (reach - radius * marker_reach(0));  // outside the rings
      draw->AddTriangleFilled(ImVec2(x - radius, y), ImVec2(x, y - radius * 0.6f), ImVec2(x, y + radius * 0.6f), color);
      left = std::min(left, x - radius);
    }
    markers.push_back({left, at.y - reach, at.x + reach, at.y + reach});
  }
  return markers;
}

// Labels beside the computed marker of each run (the useful one where there is none), never over another.
void draw_labels(ImDrawList* draw, const Frame& f, const std::vector<RooflinePoint>& points,
                 const std::vector<Box>& markers, const std::vector<Box>& texts_drawn, const Kernels& kernels) {
  std::vector<std::string> texts;
  std::vector<std::pair<float, float>> sizes;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool first_of_run = i == 0 || points[i - 1].run != points[i].run;
    const ResultRow& r = *points[i].run->primary.row;
    const SourceFamily* family = family_of(r.source);
    texts.push_back(first_of_run ? (family ? family->short_name : r.source) + " " + run_label(r, kernels.named()) : "");
    const ImVec2 s = ImGui::CalcTextSize(texts.back().c_str());
    sizes.push_back(texts.back().empty() ? std::pair{0.0f, 0.0f} : std::pair{s.x, s.y});
  }
  const std::vector<std::optional<Box>> labels =
      place_labels(markers, sizes, texts_drawn, {f.p0.x, f.p0.y, f.p1.x, f.p1.y}, 2);
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i])
      draw->AddText(ImVec2(labels[i]->x0, labels[i]->y0), color_of(*points[i].run->primary.row), texts[i].c_str());
}

void show_point_tooltip(const Frame& f, const std::vector<RooflinePoint>& points, const Kernels& kernels,
                        const std::optional<Ceilings>& ceilings, float radius) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const RooflinePoint* hovered = nullptr;
  for (const RooflinePoint& p : points)
    if (std::abs(mouse.x - f.at(p).x) < radius * 2 && std::abs(mouse.y - f.at(p).y) < radius * 2) hovered = &p;
  if (!hovered || !ImGui::IsItemHovered()) return;
  const RooflinePoint& p = *hovered;
  const ResultRow& r = *p.run->primary.row;
  const std::string roof =
      ceilings ? "\nroof there: " + format_axis(ceilings->roof_tflops(p.flops_per_byte)) + " TFLOP/s" : "";
  ImGui::SetTooltip("%s / %s (%s, %s d%d), %s\n%s median, %.1f TFLOP/s %s\n%.1f FLOPs per byte: %s%s",
                    r.scenario.c_str(), run_label(r, kernels.named()).c_str(), r.source.c_str(), dtype_name(r.dtype),
                    r.head_dim, file_name(p.run->primary).c_str(), format_us(*r.median_us).c_str(), p.tflops,
                    p.flops == FlopsBasis::computed ? "computed" : "useful", p.flops_per_byte,
                    p.bytes_from ? ("ncu's bytes from " + file_name(*p.bytes_from)).c_str()
                                 : "no measured bytes: the least any kernel must move",
                    roof.c_str());
}

// The caption: the roofs and where they were measured, or that the folder has none.
void show_caption(const std::optional<Ceilings>& ceilings, int unplaced) {
  if (ceilings)
    wrapped_text("Roofline: %.0f TFLOP/s (bf16 GEMM) and %.1f TB/s (device copy), both measured on the %s.",
                 ceilings->tflops, ceilings->tbps, ceilings->gemm.gpu.c_str());
  else
    wrapped_text("Roofline: no ceilings.toml in the results folder, so no roof is drawn.");
  if (unplaced > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%s without FLOP/s or byte counts: not plotted)", count_of(unplaced, "run").c_str());
  }
}

}  // namespace

void show_roofline(const std::vector<MeasuredRun>& runs, const Kernels& kernels,
                   const std::optional<Ceilings>& ceilings, bool labelled, float min_height,
                   const std::vector<ByteFloor>& floors) {
  std::vector<RooflinePoint> points;
  std::vector<const SourceFamily*> families;
  int unplaced = 0;
  for (const MeasuredRun& m : runs) {
    const std::vector<RooflinePoint> p = roofline_points(m);
    if (p.empty()) ++unplaced;
    points.insert(points.end(), p.begin(), p.end());
    const SourceFamily* f = family_of(m.primary.row->source);
    if (!p.empty() && f && std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  }
  show_caption(ceilings, unplaced);
  show_roofline_legend(families, kernels);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 box(ImGui::GetContentRegionAvail().x,
                   std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFontSize() * min_height));
  ImGui::InvisibleButton("roofline", box);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float margin_left = ImGui::CalcTextSize("TFLOP/s 10,000 ").x, margin_bottom = ImGui::GetFontSize() * 2.4f;
  const Frame f = frame_for(points, ceilings, ImVec2(at.x + margin_left, at.y + 4),
                            ImVec2(at.x + box.x - 8, at.y + box.y - margin_bottom));
  draw_axes(draw, f, at.x);
  draw->PushClipRect(f.p0, f.p1, true);
  if (ceilings) draw_roof(draw, f, *ceilings);
  std::vector<Box> floor_texts = ceilings ? draw_byte_floors(draw, f, *ceilings, floors) : std::vector<Box>{};
  const float radius = ImGui::GetFontSize() * 0.32f;
  const std::vector<Box> markers = draw_markers(draw, f, points, kernels, radius);
  std::vector<Box> roof_texts = ceilings ? draw_roof_labels(draw, f, *ceilings, markers) : std::vector<Box>{};
  roof_texts.insert(roof_texts.end(), floor_texts.begin(), floor_texts.end());
  if (labelled && points.size() <= max_labelled_points) draw_labels(draw, f, points, markers, roof_texts, kernels);
  draw->PopClipRect();
  show_point_tooltip(f, points, kernels, ceilings, radius);
}

}  // namespace attnlab::gui
