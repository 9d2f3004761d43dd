#include "gui/mask_picture/mask_picture.hpp"

#include <algorithm>
#include <array>

namespace attnlab::gui {

RegionCounts& RegionCounts::operator+=(const RegionCounts& o) {
  computed += o.computed;
  not_visited += o.not_visited;
  outside += o.outside;
  return *this;
}

PaintClass paint_class_of(CellKind kind) { return static_cast<PaintClass>(kind); }

PaintClass block_class(const RegionCounts& c) {
  for (CellKind attended : {CellKind::useful, CellKind::bleed})
    if (c.computed[attended] > 0) return paint_class_of(attended);
  std::array<std::int64_t, paint_class_count> by_class{};
  for (CellKind kind : computed_cell_kinds) by_class[static_cast<int>(kind)] = c.computed[kind];
  by_class[static_cast<int>(PaintClass::not_visited)] = c.not_visited;
  by_class[static_cast<int>(PaintClass::outside)] = c.outside;
  return static_cast<PaintClass>(std::max_element(by_class.begin(), by_class.end()) - by_class.begin());
}

int kinds_held(const RegionCounts& c) {
  int kinds = (c.not_visited > 0) + (c.outside > 0);
  for (CellKind kind : computed_cell_kinds) kinds += c.computed[kind] > 0;
  return kinds;
}

MaskPicture::MaskPicture(const Layout& layout, TileShape tile) : layout_(&layout), view_(layout.view()), tile_(tile) {
  q_offset_.assign(1, 0);
  k_offset_.assign(1, 0);
  for (int r = 0; r < view_.num_rows; ++r) {
    q_offset_.push_back(q_offset_.back() + std::int64_t(query_tiles(view_, tile_, r)) * tile_.rows);
    k_offset_.push_back(k_offset_.back() + std::int64_t(tiles_along(row_extent(view_, r), tile_.cols)) * tile_.cols);
  }
}

namespace {
// Rows whose block meets [lo, hi) along one axis of the picture, given that axis's offsets.
std::pair<int, int> rows_meeting_axis(const std::vector<std::int64_t>& offset, std::int64_t lo, std::int64_t hi) {
  const int rows = static_cast<int>(offset.size()) - 1;
  const int first = static_cast<int>(std::upper_bound(offset.begin(), offset.end(), lo) - offset.begin()) - 1;
  const int last = static_cast<int>(std::lower_bound(offset.begin(), offset.end(), hi) - offset.begin());
  return {std::clamp(first, 0, rows), std::clamp(last, 0, rows)};
}
}  // namespace

std::pair<int, int> MaskPicture::rows_meeting(std::int64_t q0, std::int64_t q1) const {
  return rows_meeting_axis(q_offset_, q0, q1);
}

RegionCounts MaskPicture::count_region(std::int64_t q0, std::int64_t q1, std::int64_t k0, std::int64_t k1) const {
  RegionCounts out;
  q0 = std::max<std::int64_t>(q0, 0), q1 = std::min(q1, query_extent());
  k0 = std::max<std::int64_t>(k0, 0), k1 = std::min(k1, key_extent());
  if (q1 <= q0 || k1 <= k0) return out;
  std::int64_t inside_rows = 0;
  const auto [qf, ql] = rows_meeting_axis(q_offset_, q0, q1);
  const auto [kf, kl] = rows_meeting_axis(k_offset_, k0, k1);
  for (int r = std::max(qf, kf); r < std::min(ql, kl); ++r) {
    const int qa = static_cast<int>(std::max(q0, q_offset_[r]) - q_offset_[r]);
    const int qb = static_cast<int>(std::min(q1, q_offset_[r + 1]) - q_offset_[r]);
    const int ka = static_cast<int>(std::max(k0, k_offset_[r]) - k_offset_[r]);
    const int kb = static_cast<int>(std::min(k1, k_offset_[r + 1]) - k_offset_[r]);
    if (qb <= qa || kb <= ka) continue;
    inside_rows += std::int64_t(qb - qa) * (kb - ka);
    // One query tile at a time: the tiles it visits are one run of key tiles, so its
    // visited part of [ka, kb) is one rectangle that count_tile counts.
    for (int qt = qa / tile_.rows; qt * tile_.rows < qb; ++qt) {
      const int qs = std::max(qa, qt * tile_.rows), qe = std::min(qb, (qt + 1) * tile_.rows);
      const TileRange keys = key_tiles_visited(view_, tile_, r, qt);
      const int visited_first = std::max(ka, keys.first * tile_.cols);
      const int visited_end = std::min(kb, keys.end * tile_.cols);
      const int visited = std::max(0, visited_end - visited_first);
      if (visited > 0) out.computed += count_tile(view_, r, qs, visited_first, TileShape{qe - qs, visited});
      out.not_visited += std::int64_t(qe - qs) * (kb - ka - visited);
    }
  }
  out.outside = (q1 - q0) * (k1 - k0) - inside_rows;
  return out;
}

PictureCell MaskPicture::cell_at(std::int64_t q, std::int64_t k) const {
  PictureCell cell;
  if (q < 0 || k < 0 || q >= query_extent() || k >= key_extent()) return cell;
  const int r = rows_meeting(q, q + 1).first;
  if (k < k_offset_[r] || k >= k_offset_[r + 1]) return cell;
  cell.row = r;
  cell.q = static_cast<int>(q - q_offset_[r]);
  cell.k = static_cast<int>(k - k_offset_[r]);
  cell.q_tile = cell.q / tile_.rows;
  cell.k_tile = cell.k / tile_.cols;
  cell.visited = tile_visited(view_, tile_, r, cell.q_tile, cell.k_tile);
  cell.kind = cell.visited ? cell_kind(view_, r, cell.q, cell.k) : CellKind::not_visited;
  return cell;
}

RegionCounts MaskRaster::total() const {
  RegionCounts sum;
  for (const RegionCounts& c : counts) sum += c;
  return sum;
}

MaskRaster rasterize(const MaskPicture& picture, std::int64_t cells_per_bin, std::int64_t bin_q0, std::int64_t bin_k0,
                     int bins_q, int bins_k) {
  MaskRaster raster{cells_per_bin, bin_q0, bin_k0, bins_q, bins_k, {}};
  raster.counts.resize(static_cast<std::size_t>(bins_q) * bins_k);
  for (int i = 0; i < bins_q; ++i) {
    const std::int64_t q0 = (bin_q0 + i) * cells_per_bin;
    for (int j = 0; j < bins_k; ++j) {
      const std::int64_t k0 = (bin_k0 + j) * cells_per_bin;
      raster.counts[static_cast<std::size_t>(i) * bins_k + j] =
          picture.count_region(q0, q0 + cells_per_bin, k0, k0 + cells_per_bin);
    }
  }
  return raster;
}

}  // namespace attnlab::gui
