#include "gui/views/timings/label_placement.hpp"

#include <algorithm>

namespace attnlab::gui {

std::vector<std::optional<Box>> place_labels(const std::vector<Box>& markers,
                                             const std::vector<std::pair<float, float>>& sizes,
                                             const std::vector<Box>& obstacles, const Box& area, float gap) {
  std::vector<std::optional<Box>> placed(markers.size());
  std::vector<Box> taken = markers;
  taken.insert(taken.end(), obstacles.begin(), obstacles.end());
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const Box& m = markers[i];
    const auto [w, h] = sizes[i];
    if (w <= 0 || h <= 0) continue;
    const float cy = (m.y0 + m.y1) / 2 - h / 2, cx = (m.x0 + m.x1) / 2 - w / 2;
    const Box candidates[] = {
        {m.x1 + gap, cy, m.x1 + gap + w, cy + h},  // right
        {m.x0 - gap - w, cy, m.x0 - gap, cy + h},  // left
        {cx, m.y0 - gap - h, cx + w, m.y0 - gap},  // above
        {cx, m.y1 + gap, cx + w, m.y1 + gap + h},  // below
    };
    for (const Box& c : candidates) {
      if (!c.inside(area) || std::any_of(taken.begin(), taken.end(), [&](const Box& t) { return t.overlaps(c); }))
        continue;
      placed[i] = c;
      taken.push_back(c);
      break;
    }
  }
  return placed;
}

}  // namespace attnlab::gui
