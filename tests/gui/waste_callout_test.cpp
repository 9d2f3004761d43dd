// The sentence the Scenario and Costs views print beside their tables carries the
// table's figures: for the article's case, 7.22x computed in 64x64 tiles and 7.99x
// attended, never the rounded 8x of the scenario file's description.
#include <gtest/gtest.h>

#include "analysis/number_format.hpp"
#include "core/scenario/scenario_file.hpp"
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

// long-tail: padded is the larger waste, but packed's rows cut its long documents and lose
// most of the useful scores; the Scenario view's summary says both (it led with padded alone).
TEST(WasteCallout, TheSummarySaysWhatPackedLoses) {
  const ScenarioModel model = build_model(load_scenario("long-tail"), {64, 64});
  const ImplementationCost& packed = model.costs[Implementation::packed];
  const ImplementationCost& varlen = model.costs[Implementation::varlen];
  ASSERT_GT(packed.useful_lost, 0);
  const std::string lost = format_percent(double(packed.useful_lost) / double(varlen.scores_useful()));
  EXPECT_GT(double(packed.useful_lost), 0.8 * double(varlen.scores_useful()));  // most of them
  const std::string text = scenario_summary(model);
  EXPECT_NE(text.find("Packed loses " + lost + " of varlen's useful scores"), std::string::npos) << text;
  EXPECT_NE(text.find(format_ratio(packed.computed_vs_varlen)), std::string::npos) << text;
  // Nothing lost, nothing said: the article's case.
  const ScenarioModel article = build_model(load_scenario("uniform-64x512"), {64, 64});
  EXPECT_EQ(useful_lost_sentence(article), "");
}

}  // namespace
}  // namespace attnlab::gui
