#pragma once
// A small chart with its axes, for series a view shows as a picture: the title above,
// the value range on the left, the first and last x below with what x counts. Where there
// are more values than pixel columns, each column draws the range of its values, so a
// frame's cost follows the pixels, not the values (16M document lengths are one frame's
// few hundred bars).
#include <imgui.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::gui {

struct PlotSpec {
  std::string title;    // "running max m"
  std::string x_label;  // what x counts: "query", "document, in order"
  double x_first = 0;   // x of the first value (queries start at the tile's first)
  bool bars = false;    // bars up from zero (a histogram); else a line, with the y range fitted to the values
};

// Non-finite values (a running max before any key) are left out of the line.
void draw_plot(const PlotSpec& spec, std::span<const double> values, ImVec2 size);
void draw_plot(const PlotSpec& spec, std::span<const int> values, ImVec2 size);

// The least and greatest finite value of each of `columns` equal runs of `values` (in order;
// a run with none finite gets {NaN, NaN}). What a plot narrower than its values draws.
template <class T>
std::vector<std::pair<double, double>> column_ranges(std::span<const T> values, int columns);

}  // namespace attnlab::gui
