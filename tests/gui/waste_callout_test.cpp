// The sentence the Scenario and Costs views print beside their tables carries the
// table's figures: for the article's case, 7.22x computed in 64x64 tiles and 7.99x
// attended, never the rounded 8x of the scenario file's description.
#include <gtest/gtest.h>

#include "analysis/number_format.hpp"
#include "core/scenario_file.hpp"
#include "gui/views/waste_callout.hpp"

namespace attnlab::gui {
namespace {

TEST(WasteCallout, TheSentenceCarriesTheModelsRatios) {
  for (const TileShape tile : {TileShape{64, 64}, TileShape{128, 128}}) {
    const ScenarioModel model = build_model(load_scenario("uniform-64x512"), tile);
    const ImplementationCost& packed = model.costs[Implementation::packed];
    EXPECT_EQ(largest_waste(model), Implementation::packed);
    const std::string text = waste_sentence(model);
    EXPECT_NE(text.find(format_ratio(packed.computed_vs_varlen)), std::string::npos) << text;
    EXPECT_NE(text.find(format_ratio(packed.attended_vs_varlen)), std::string::npos) << text;
    EXPECT_EQ(text.find(" 8x"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace attnlab::gui
