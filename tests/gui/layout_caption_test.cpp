// The Masks view's caption of each picture says what a token sees there: "causal over the
// whole row" only where no window bounds it (it said so under a window of 512 too).
#include <gtest/gtest.h>

#include "core/scenario/scenario_file.hpp"
#include "gui/views/layout_caption.hpp"

namespace attnlab::gui {
namespace {

TEST(LayoutCaption, TheWindowIsSaidWhereThereIsOne) {
  const Scenario whole = load_scenario("uniform-64x512");
  EXPECT_EQ(layout_caption(Implementation::packed, whole), "packed rows, causal over the whole row");
  const Scenario windowed = load_scenario("uniform-64x512-rows-2048-window512");
  ASSERT_TRUE(windowed.window.any());
  const std::string packed = layout_caption(Implementation::packed, windowed);
  EXPECT_EQ(packed.find("whole row"), std::string::npos) << packed;
  EXPECT_NE(packed.find("the 512 keys before it in its row"), std::string::npos) << packed;
  EXPECT_NE(layout_caption(Implementation::varlen, windowed).find("the 512 keys before it in its document"),
            std::string::npos);
  Scenario both_sides = whole;
  both_sides.causal = false;
  both_sides.window = {100, 50};
  EXPECT_NE(layout_caption(Implementation::packed, both_sides).find("100 keys before it and 50 after"),
            std::string::npos);
}

}  // namespace
}  // namespace attnlab::gui
