#include "gui/roofline.hpp"

#include <algorithm>

namespace attnlab::gui {

double Ceilings::roof_tflops(double flops_per_byte) const { return std::min(tflops, tbps * flops_per_byte); }

std::optional<std::int64_t> least_bytes(const ResultRow& r) {
  if (!r.tokens || !r.kv_heads) return std::nullopt;
  const std::int64_t per_head = *r.tokens * r.head_dim * dtype_bytes(r.dtype);
  const std::int64_t tensors_per_head = r.pass == Pass::fwd ? 2 : 4;  // fwd: Q and O (K and V); bwd adds dO, dQ (dK, dV)
  return per_head * tensors_per_head * (std::int64_t{r.heads} + *r.kv_heads);
}

std::vector<RooflinePoint> roofline_points(const MeasuredRun& run) {
  const ResultRow& r = *run.primary.row;
  RooflinePoint base{&run, run.with_measured_bytes(), 0, 0, FlopsBasis::computed, BytesBasis::measured};
  std::optional<std::int64_t> bytes;
  if (base.bytes_from) {
    bytes = base.bytes_from->row->hbm_bytes_measured;
  } else {
    base.bytes = BytesBasis::lower_bound;
    bytes = least_bytes(r);
  }
  std::vector<RooflinePoint> points;
  if (!bytes || *bytes <= 0 || !r.median_us) return points;
  const double seconds = *r.median_us * 1e-6;
  for (const auto& [tflops, basis] : {std::pair{r.computed_tflops, FlopsBasis::computed}, std::pair{r.useful_tflops, FlopsBasis::useful}}) {
    if (!tflops || *tflops <= 0) continue;
    RooflinePoint p = base;
    p.flops = basis;
    p.tflops = *tflops;
    p.flops_per_byte = *tflops * 1e12 * seconds / double(*bytes);
    points.push_back(p);
  }
  return points;
}

std::vector<std::optional<Box>> place_labels(const std::vector<Box>& markers, const std::vector<std::pair<float, float>>& sizes,
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
        {m.x1 + gap, cy, m.x1 + gap + w, cy + h},              // right
        {m.x0 - gap - w, cy, m.x0 - gap, cy + h},              // left
        {cx, m.y0 - gap - h, cx + w, m.y0 - gap},              // above
        {cx, m.y1 + gap, cx + w, m.y1 + gap + h},              // below
    };
    for (const Box& c : candidates) {
      if (!c.inside(area) || std::any_of(taken.begin(), taken.end(), [&](const Box& t) { return t.overlaps(c); })) continue;
      placed[i] = c;
      taken.push_back(c);
      break;
    }
  }
  return placed;
}

}  // namespace attnlab::gui
