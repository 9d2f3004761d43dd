#include "gui/widgets/implementation_colors.hpp"

#include <algorithm>

namespace attnlab::gui {

Rgb implementation_rgb(Implementation i) {
  switch (i) {
    case Implementation::naive: return {255, 130, 230};   // pink
    case Implementation::padded: return {255, 240, 140};  // light yellow
    case Implementation::packed: return {245, 245, 245};  // white
    case Implementation::varlen: return {60, 225, 240};   // cyan
  }
  return {255, 255, 255};
}

ImU32 implementation_color(Implementation i) {
  const Rgb c = implementation_rgb(i);
  return IM_COL32(c[0], c[1], c[2], 255);
}

MarkerShape family_marker(const SourceFamily* family) {
  if (!family) return MarkerShape::cross;
  const std::vector<SourceFamily>& families = source_families();  // a family's place in the file picks its shape
  constexpr MarkerShape shapes[] = {MarkerShape::circle,   MarkerShape::diamond,       MarkerShape::square,
                                    MarkerShape::triangle, MarkerShape::triangle_down, MarkerShape::cross};
  const auto index = static_cast<std::size_t>(family - families.data());
  return index < std::size(shapes) ? shapes[index] : MarkerShape::cross;
}

int kernel_rings(const std::vector<std::string>& kernels, const ResultRow& r) {
  if (!ours_of_a_flash_kernel(r)) return 0;
  const auto at = std::find(kernels.begin(), kernels.end(), r.kernel);
  return at == kernels.end() ? 0 : int(at - kernels.begin());
}

float marker_reach(int rings) { return 1.3f + 0.7f * float(rings); }

void draw_marker(ImDrawList* draw, ImVec2 c, float r, MarkerShape shape, ImU32 color, bool filled, int rings) {
  for (int k = 1; k <= rings; ++k) draw_marker(draw, c, r * (1 + 0.6f * float(k)), shape, color, false);
  const float t = 1.5f;
  switch (shape) {
    case MarkerShape::circle: filled ? draw->AddCircleFilled(c, r, color) : draw->AddCircle(c, r, color, 0, t); break;
    case MarkerShape::square: {
      const ImVec2 a(c.x - r * 0.85f, c.y - r * 0.85f), b(c.x + r * 0.85f, c.y + r * 0.85f);
      filled ? draw->AddRectFilled(a, b, color) : draw->AddRect(a, b, color, 0, 0, t);
      break;
    }
    case MarkerShape::diamond: {
      const ImVec2 p[] = {{c.x, c.y - r * 1.2f}, {c.x + r * 1.2f, c.y}, {c.x, c.y + r * 1.2f}, {c.x - r * 1.2f, c.y}};
      filled ? draw->AddConvexPolyFilled(p, 4, color) : draw->AddPolyline(p, 4, color, ImDrawFlags_Closed, t);
      break;
    }
    case MarkerShape::triangle:
    case MarkerShape::triangle_down: {
      const float s = shape == MarkerShape::triangle ? 1 : -1;
      const ImVec2 a(c.x, c.y - s * r * 1.2f), b(c.x + r * 1.1f, c.y + s * r * 0.8f),
          d(c.x - r * 1.1f, c.y + s * r * 0.8f);
      filled ? draw->AddTriangleFilled(a, b, d, color) : draw->AddTriangle(a, b, d, color, t);
      break;
    }
    case MarkerShape::cross:
      draw->AddLine(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), color, filled ? 2.5f : t);
      draw->AddLine(ImVec2(c.x - r, c.y + r), ImVec2(c.x + r, c.y - r), color, filled ? 2.5f : t);
      break;
  }
}

}  // namespace attnlab::gui
