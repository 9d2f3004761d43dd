#pragma once
// A small chart with its axes, for series a view shows as a picture: the title above,
// the value range on the left, the first and last x below with what x counts.
#include <imgui.h>

#include <string>
#include <vector>

namespace attnlab::gui {

struct PlotSpec {
  std::string title;    // "running max m"
  std::string x_label;  // what x counts: "query", "document, in order"
  double x_first = 0;   // x of the first value (queries start at the tile's first)
  bool bars = false;    // bars up from zero (a histogram); else a line, with the y range fitted to the values
};

// Non-finite values (a running max before any key) are left out of the line.
void draw_plot(const PlotSpec& spec, const std::vector<double>& values, ImVec2 size);

}  // namespace attnlab::gui
