#pragma once
// Where the roofline's labels go: beside their markers, never over another label, a
// marker or other text. Kept apart from the drawing so the tests can check it.
#include <optional>
#include <utility>
#include <vector>

namespace attnlab::gui {

// A rectangle on screen.
struct Box {
  float x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box& o) const { return x0 >= o.x0 && y0 >= o.y0 && x1 <= o.x1 && y1 <= o.y1; }
};

// The first of `candidates` inside `area` that overlaps none of `taken`.
std::optional<Box> first_free(const std::vector<Box>& candidates, const std::vector<Box>& taken, const Box& area);

// Label boxes beside markers (drawn in this order), none overlapping another label, any
// marker or any of `obstacles` (other text), all inside `area`: each label tries right of
// its marker, then left, above and below, and is left out (nullopt; the tooltip still
// names the point) when none is free. A size of {0, 0} asks for no label; a marker whose
// centre a later marker covers gets none either: its label would name a point not seen.
std::vector<std::optional<Box>> place_labels(const std::vector<Box>& markers,
                                             const std::vector<std::pair<float, float>>& sizes,
                                             const std::vector<Box>& obstacles, const Box& area, float gap);

}  // namespace attnlab::gui
