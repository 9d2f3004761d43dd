#include "gui/views/timings/label_placement.hpp"

#include <algorithm>

namespace attnlab::gui {

std::optional<Box> first_free(const std::vector<Box>& candidates, const std::vector<Box>& taken, const Box& area) {
  for (const Box& c : candidates)
    if (c.inside(area) && std::none_of(taken.begin(), taken.end(), [&](const Box& t) { return t.overlaps(c); }))
      return c;
  return std::nullopt;
}

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
    const float mx = (m.x0 + m.x1) / 2, my = (m.y0 + m.y1) / 2;
    const Box centre{mx, my, mx + 0.01f, my + 0.01f};
    if (std::any_of(markers.begin() + std::ptrdiff_t(i) + 1, markers.end(),
                    [&](const Box& later) { return later.overlaps(centre); }))
      continue;
    const float cy = my - h / 2, cx = mx - w / 2;
    placed[i] = first_free(
        {
            {m.x1 + gap, cy, m.x1 + gap + w, cy + h},  // right
            {m.x0 - gap - w, cy, m.x0 - gap, cy + h},  // left
            {cx, m.y0 - gap - h, cx + w, m.y0 - gap},  // above
            {cx, m.y1 + gap, cx + w, m.y1 + gap + h},  // below
        },
        taken, area);
    if (placed[i]) taken.push_back(*placed[i]);
  }
  return placed;
}

}  // namespace attnlab::gui
