#pragma once
// The picture of one layout's score matrix, and what any rectangle of it holds.
// Each row's matrix sits on the diagonal as a block of its tile-rounded extent
// (query tiles x key tiles), so tile overhang shows (as padding) and the cells of
// the picture are exactly the cells count_layout counts, plus the skipped tiles.
// Every count comes from core/layout/layout.hpp (count_tile, key_tiles_visited): the
// picture never decides a cell kind on its own.
#include <cstdint>
#include <vector>

#include "core/layout/layouts.hpp"

namespace attnlab::gui {

// What a rectangle of the picture holds: computed cells by kind, cells of tiles the
// kernel skips, and cells between rows (no score matrix there at all).
struct RegionCounts {
  CellCounts computed;
  std::int64_t not_visited = 0;
  std::int64_t outside = 0;

  RegionCounts& operator+=(const RegionCounts& o);
  bool operator==(const RegionCounts&) const = default;
};

// The colour class a region is painted with: a cell kind, or the gap between rows.
// The first classes mirror CellKind, in its order.
enum class PaintClass : std::uint8_t { useful, causal_masked, padding, bleed, window_masked, not_visited, outside };
inline constexpr int paint_class_count = cell_kind_count + 1;
static_assert(static_cast<int>(PaintClass::not_visited) == static_cast<int>(CellKind::not_visited));
PaintClass paint_class_of(CellKind kind);
// The class a block of the picture is painted in: useful where it holds any useful cell,
// else bleed where it holds any, else its most common class (ties to the first in
// PaintClass order). Attended cells are few in a small picture's blocks; painted by
// majority, varlen's diagonal would vanish among masked cells.
PaintClass block_class(const RegionCounts& counts);
// How many paint classes a region holds cells of (a block of one class is painted whole).
int kinds_held(const RegionCounts& counts);

// One cell of the picture resolved back to the layout: row, positions in the row, tiles.
struct PictureCell {
  int row = -1;
  int q = 0, k = 0;  // positions inside the row (may lie in tile overhang)
  int q_tile = 0, k_tile = 0;
  bool visited = false;
  CellKind kind = CellKind::not_visited;  // not_visited when the tile is skipped
};

class MaskPicture {
 public:
  MaskPicture(const Layout& layout, TileShape tile);

  const Layout& layout() const { return *layout_; }
  TileShape tile() const { return tile_; }
  std::int64_t query_extent() const { return q_offset_.back(); }
  std::int64_t key_extent() const { return k_offset_.back(); }
  std::int64_t row_query_offset(int r) const { return q_offset_[r]; }
  std::int64_t row_key_offset(int r) const { return k_offset_[r]; }
  int row_query_span(int r) const { return static_cast<int>(q_offset_[r + 1] - q_offset_[r]); }
  int row_key_span(int r) const { return static_cast<int>(k_offset_[r + 1] - k_offset_[r]); }

  // Rows whose block meets picture query range [q0, q1): [first, last).
  std::pair<int, int> rows_meeting(std::int64_t q0, std::int64_t q1) const;

  // What the rectangle [q0, q1) x [k0, k1) of the picture holds (clipped to the picture).
  RegionCounts count_region(std::int64_t q0, std::int64_t q1, std::int64_t k0, std::int64_t k1) const;

  // The cell at picture position (q, k); row -1 when it lies between rows or outside.
  PictureCell cell_at(std::int64_t q, std::int64_t k) const;

 private:
  const Layout* layout_;
  LayoutView view_;
  TileShape tile_;
  std::vector<std::int64_t> q_offset_, k_offset_;  // num_rows + 1 picture offsets
};

// The picture cut into square bins of `cells_per_bin` cells (aligned to multiples
// of it), over the bins [bin_q0, bin_q0 + bins_q) x [bin_k0, bin_k0 + bins_k).
struct MaskRaster {
  std::int64_t cells_per_bin = 1;
  std::int64_t bin_q0 = 0, bin_k0 = 0;
  int bins_q = 0, bins_k = 0;
  std::vector<RegionCounts> counts;  // bins_q x bins_k, row-major (query-major)

  const RegionCounts& at(int i, int j) const { return counts[static_cast<std::size_t>(i) * bins_k + j]; }
  RegionCounts total() const;
};

MaskRaster rasterize(const MaskPicture& picture, std::int64_t cells_per_bin, std::int64_t bin_q0, std::int64_t bin_k0,
                     int bins_q, int bins_k);

}  // namespace attnlab::gui
