// The mask picture's counts come from core/layout/layout.hpp alone: whatever way the
// picture is cut into blocks, the cells it paints add up to count_layout.
#include <gtest/gtest.h>

#include "core/scenario/scenario_file.hpp"
#include "gui/app/scenario_model.hpp"
#include "gui/mask_picture/mask_picture.hpp"

namespace attnlab::gui {
namespace {

// Every cell of every row block: computed + skipped.
std::int64_t row_block_cells(const MaskPicture& p) {
  std::int64_t cells = 0;
  for (int r = 0; r < p.layout().num_rows(); ++r) cells += std::int64_t(p.row_query_span(r)) * p.row_key_span(r);
  return cells;
}

void expect_blocks_add_up(const ScenarioModel& model, std::int64_t cells_per_bin) {
  for (Implementation impl : all_implementations) {
    SCOPED_TRACE(std::string(implementation_name(impl)) + ", bins of " + std::to_string(cells_per_bin));
    const MaskPicture picture(model.layout_of(impl), model.tile_of(impl));
    const auto bins = [&](std::int64_t extent) {
      return static_cast<int>((extent + cells_per_bin - 1) / cells_per_bin);
    };
    const RegionCounts total =
        rasterize(picture, cells_per_bin, 0, 0, bins(picture.query_extent()), bins(picture.key_extent())).total();
    EXPECT_EQ(total.computed, count_layout(model.layout_of(impl), model.tile_of(impl)));
    EXPECT_EQ(total.computed.computed() + total.not_visited, row_block_cells(picture));
  }
}

TEST(MaskPicture, BlocksOfAnySizeAddUpToCountLayoutForEveryShippedScenario) {
  for (const Scenario& s : list_scenarios()) {
    SCOPED_TRACE(s.name);
    const ScenarioModel model = build_model(s, {64, 64});
    ASSERT_TRUE(model.ok()) << model.error;
    // Blocks as the Masks view makes them when the whole picture fits 200 and 600 pixels.
    const std::int64_t extent = MaskPicture(model.layouts->padded, {64, 64}).query_extent();
    expect_blocks_add_up(model, std::max<std::int64_t>(1, extent / 200 + 3));
    expect_blocks_add_up(model, std::max<std::int64_t>(1, extent / 600 + 1));
  }
}

// A small scenario cell by cell: each cell's kind is cell_kind's (or not_visited
// for a skipped tile), and the cells of each kind number what count_layout says.
TEST(MaskPicture, CellByCellMatchesCellKindAndCountLayout) {
  Scenario s;
  s.name = "small";
  s.doc_lengths = {5, 40, 20, 3};
  s.row_len = 32;
  const ScenarioModel model = build_model(s, {16, 16});
  ASSERT_TRUE(model.ok()) << model.error;
  expect_blocks_add_up(model, 1);
  for (Implementation impl : all_implementations) {
    SCOPED_TRACE(implementation_name(impl));
    const MaskPicture picture(model.layout_of(impl), model.tile_of(impl));
    const LayoutView v = model.layout_of(impl).view();
    CellCounts painted;
    std::int64_t skipped = 0, outside = 0;
    for (std::int64_t q = 0; q < picture.query_extent(); ++q)
      for (std::int64_t k = 0; k < picture.key_extent(); ++k) {
        const PictureCell cell = picture.cell_at(q, k);
        const PaintClass expected = block_class(picture.count_region(q, q + 1, k, k + 1));
        if (cell.row < 0) {
          ++outside;
          EXPECT_EQ(expected, PaintClass::outside);
          continue;
        }
        EXPECT_EQ(cell.visited, tile_visited(v, picture.tile(), cell.row, cell.q_tile, cell.k_tile));
        EXPECT_EQ(expected, paint_class_of(cell.kind)) << "q " << q << " k " << k;
        if (cell.visited) {
          EXPECT_EQ(cell.kind, cell_kind(v, cell.row, cell.q, cell.k));
          painted.add(cell.kind);
        } else {
          ++skipped;
        }
      }
    EXPECT_EQ(painted, count_layout(model.layout_of(impl), model.tile_of(impl)));
    EXPECT_EQ(painted.computed() + skipped, row_block_cells(picture));
    EXPECT_EQ(outside, picture.query_extent() * picture.key_extent() - row_block_cells(picture));
  }
}

TEST(MaskPicture, PackedRowsOfTheArticleCaseHoldBleed) {
  const ScenarioModel model = build_model(load_scenario("uniform-64x512"), {64, 64});
  const MaskPicture picture(model.layouts->packed, {64, 64});
  // Row 0 holds documents 0..7; query 1024+100 (document 2) against key 100 (document 0).
  const PictureCell cell = picture.cell_at(1124, 100);
  EXPECT_EQ(cell.row, 0);
  EXPECT_TRUE(cell.visited);
  EXPECT_EQ(cell.kind, CellKind::bleed);
  EXPECT_GT(picture.count_region(0, 4096, 0, 4096).computed[CellKind::bleed], 0);
  // varlen never bleeds.
  EXPECT_EQ(count_layout(model.layouts->varlen, {64, 64})[CellKind::bleed], 0);
}

// A thumbnail of the article's case (the Masks view at 1280x720, or 1.75x text: blocks of
// 150 cells and more): every block holding an attended cell is painted as attended, so
// varlen shows all 64 documents and packed keeps its diagonal; a block without one is
// painted in its most common class.
TEST(MaskPicture, ABlockWithAnAttendedCellShowsIt) {
  const ScenarioModel model = build_model(load_scenario("uniform-64x512"), {64, 64});
  for (Implementation impl : {Implementation::packed, Implementation::varlen})
    for (const std::int64_t cells_per_bin : {150, 300}) {
      SCOPED_TRACE(std::string(implementation_name(impl)) + ", bins of " + std::to_string(cells_per_bin));
      const MaskPicture picture(model.layout_of(impl), model.tile_of(impl));
      const auto bins = [&](std::int64_t extent) {
        return static_cast<int>((extent + cells_per_bin - 1) / cells_per_bin);
      };
      const MaskRaster raster =
          rasterize(picture, cells_per_bin, 0, 0, bins(picture.query_extent()), bins(picture.key_extent()));
      int useful_blocks = 0;
      for (int i = 0; i < raster.bins_q; ++i)
        for (int j = 0; j < raster.bins_k; ++j) {
          const RegionCounts& c = raster.at(i, j);
          const PaintClass painted = block_class(c);
          if (c.computed[CellKind::useful] > 0) {
            EXPECT_EQ(painted, PaintClass::useful) << i << "," << j;
            ++useful_blocks;
          } else if (c.computed[CellKind::bleed] > 0) {
            EXPECT_EQ(painted, PaintClass::bleed) << i << "," << j;
          }
        }
      // Each document's diagonal crosses at least one block per block of its length.
      EXPECT_GE(useful_blocks, raster.bins_q);
    }
}

}  // namespace
}  // namespace attnlab::gui
