// The Timings view's model rows stand at the tile of the kernels measured beside them:
// wgmma-sm90 runs 128x128 tiles, mma-sm80 64x64, and the model's scores computed follow.
#include <gtest/gtest.h>

#include "core/layout/tile_name.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/views/timings/model_ratios.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

TEST(ModelRatios, ScoresComputedAtEachOfOurKernelsTiles) {
  const Scenario s = load_scenario("uniform-64x512");
  const ScenarioModel model = build_model(s, {64, 64});
  const LoadedResults results = shipped_results();
  const std::vector<SourceRatios> ratios = source_ratios(results, own_configuration(s), false);
  std::vector<TileShape> ours;
  for (const SourceRatios& r : ratios)
    if (r.family->name == ours_family && r.tile()) ours.push_back(*r.tile());
  ASSERT_GE(ours.size(), 2u);  // the shipped files hold both kernels' runs
  const std::vector<ModelRatioRow> rows = model_ratio_rows(model, ratios);
  for (TileShape tile : ours) {
    SCOPED_TRACE(tile_name(tile));
    const CostModel at = model_costs(s, tile);
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const ModelRatioRow& r) {
      return r.label.find(tile_name(tile)) != std::string::npos;
    });
    ASSERT_NE(row, rows.end());
    EXPECT_EQ(row->packed, at[Implementation::packed].computed_vs_varlen);
    EXPECT_EQ(row->padded, at[Implementation::padded].computed_vs_varlen);
  }
}

}  // namespace
}  // namespace attnlab::gui
