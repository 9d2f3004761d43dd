#include "gui/mask_picture/mask_painting.hpp"

#include <algorithm>
#include <cmath>

#include "gui/mask_picture/cell_colors.hpp"

namespace attnlab::gui {

MaskPlacement resolve_placement(const MaskViewport& vp, const MaskPicture& picture, ImVec2 at, float side) {
  const double extent = static_cast<double>(std::max<std::int64_t>({picture.query_extent(), picture.key_extent(), 1}));
  MaskPlacement p{at.x, at.y, side, vp.pixels_per_cell, vp.origin_q, vp.origin_k, 1};
  if (p.pixels_per_cell <= 0) p = {at.x, at.y, side, side / (vp.fit_cells > 0 ? vp.fit_cells : extent), 0, 0, 1};
  if (p.pixels_per_cell < block_pixels)
    p.cells_per_bin = static_cast<std::int64_t>(std::ceil(block_pixels / p.pixels_per_cell));
  return p;
}

float screen_x(const MaskPlacement& p, std::int64_t k) {
  return std::round(p.x + float((k - p.origin_k) * p.pixels_per_cell));
}
float screen_y(const MaskPlacement& p, std::int64_t q) {
  return std::round(p.y + float((q - p.origin_q) * p.pixels_per_cell));
}

void paint_cells(ImDrawList* draw, const MaskPicture& picture, const MaskPlacement& p) {
  paint_blocks(draw, picture, p, [](const RegionCounts& c, std::int64_t, std::int64_t) -> std::optional<ImU32> {
    const PaintClass k = block_class(c);
    if (k == PaintClass::outside) return std::nullopt;
    return paint_color(k);
  });
}

void paint_blocks(ImDrawList* draw, const MaskPicture& picture, const MaskPlacement& p, const BlockColor& color) {
  const std::int64_t n = p.cells_per_bin;
  const double visible = p.side / p.pixels_per_cell;
  const auto bins_from = [&](double origin, std::int64_t extent, std::int64_t& first) {
    first = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(origin / double(n))));
    const std::int64_t last = std::min<std::int64_t>(
        (extent + n - 1) / n, static_cast<std::int64_t>(std::ceil((origin + visible) / double(n))));
    return static_cast<int>(std::max<std::int64_t>(0, last - first));
  };
  std::int64_t bq0 = 0, bk0 = 0;
  const int bins_q = bins_from(p.origin_q, picture.query_extent(), bq0);
  const int bins_k = bins_from(p.origin_k, picture.key_extent(), bk0);
  const MaskRaster raster = rasterize(picture, n, bq0, bk0, bins_q, bins_k);
  // A block of several kinds is painted again pixel by pixel, so a document a few pixels wide
  // shows its masked half beside its diagonal (naive's 49.9% causal_masked at fit-all).
  const std::int64_t pixel = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(1 / p.pixels_per_cell)));
  const auto paint_pixels = [&](std::int64_t q0, std::int64_t k0) {
    const std::int64_t q_end = std::min(q0 + n, picture.query_extent()), k_end = std::min(k0 + n, picture.key_extent());
    for (std::int64_t q = q0; q < q_end; q += pixel)
      for (std::int64_t k = k0; k < k_end; k += pixel)
        if (const std::optional<ImU32> c = color(picture.count_region(q, q + pixel, k, k + pixel), q, k))
          draw->AddRectFilled(ImVec2(screen_x(p, k), screen_y(p, q)),
                              ImVec2(screen_x(p, std::min(k + pixel, k_end)), screen_y(p, std::min(q + pixel, q_end))),
                              *c);
  };
  for (int i = 0; i < bins_q; ++i) {
    const float y0 = screen_y(p, (bq0 + i) * n), y1 = screen_y(p, std::min((bq0 + i + 1) * n, picture.query_extent()));
    // Runs of one colour along the row become one rectangle.
    const auto color_at = [&](int j) { return color(raster.at(i, j), (bq0 + i) * n, (bk0 + j) * n); };
    for (int j = 0; j < bins_k;) {
      if (pixel < n && kinds_held(raster.at(i, j)) > 1) {
        paint_pixels((bq0 + i) * n, (bk0 + j) * n);
        ++j;
        continue;
      }
      const std::optional<ImU32> c = color_at(j);
      int end = j + 1;
      while (end < bins_k && color_at(end) == c && !(pixel < n && kinds_held(raster.at(i, end)) > 1)) ++end;
      if (c) {
        const float x0 = screen_x(p, (bk0 + j) * n), x1 = screen_x(p, std::min((bk0 + end) * n, picture.key_extent()));
        draw->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), *c);
      }
      j = end;
    }
  }
}

void draw_tile_grid(ImDrawList* draw, const MaskPicture& picture, const MaskPlacement& p) {
  const TileShape t = picture.tile();
  const LayoutView v = picture.layout().view();
  const double visible = p.side / p.pixels_per_cell;
  const auto [first_row, last_row] =
      picture.rows_meeting(static_cast<std::int64_t>(p.origin_q), static_cast<std::int64_t>(p.origin_q + visible) + 1);
  for (int r = first_row; r < last_row; ++r) {
    const std::int64_t q_at = picture.row_query_offset(r), k_at = picture.row_key_offset(r);
    const int key_tiles = picture.row_key_span(r) / t.cols;
    const int qt_first = std::max(0, int((p.origin_q - q_at) / t.rows));
    const int qt_last = std::min(query_tiles(v, t, r), int((p.origin_q + visible - q_at) / t.rows) + 1);
    const int kt_first = std::max(0, int((p.origin_k - k_at) / t.cols));
    const int kt_last = std::min(key_tiles, int((p.origin_k + visible - k_at) / t.cols) + 1);
    for (int qt = qt_first; qt < qt_last; ++qt)
      for (int kt = kt_first; kt < kt_last; ++kt) {
        const bool visited = tile_visited(v, t, r, qt, kt);
        const ImVec2 a(screen_x(p, k_at + std::int64_t(kt) * t.cols), screen_y(p, q_at + std::int64_t(qt) * t.rows));
        const ImVec2 b(screen_x(p, k_at + std::int64_t(kt + 1) * t.cols),
                       screen_y(p, q_at + std::int64_t(qt + 1) * t.rows));
        draw->AddRect(a, b, visited ? IM_COL32(255, 255, 255, 150) : IM_COL32(255, 255, 255, 28));
      }
  }
}

}  // namespace attnlab::gui
