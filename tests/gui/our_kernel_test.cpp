// "Ours" is one kernel in every view: the shipped results hold the teaching mma-sm80 (64x64
// tiles) and the Hopper wgmma-sm90 (128x128). The views showed the teaching kernel's 5.67x
// in Costs and the Story's steps 2 and 4 (the model at 64x64) while step 6, the Training step
// and the CLI led with wgmma-sm90's 4.33x. Now the model is at the tile of the kernel shown,
// the first loaded unless another is chosen, and the other kernel stands beside it.
#include <gtest/gtest.h>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/ratio_chain.hpp"
#include "gui/views/story_text.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

bool says(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(OurKernel, TheModelFollowsTheKernelShownAndTheOtherStandsBesideIt) {
  AppState state = make_app_state("uniform-64x512", shipped_results_folder);
  const std::vector<OurKernel> kernels = our_kernels(state);
  ASSERT_EQ(kernels.size(), 2u);
  const OurKernel &first = kernels[0], &second = kernels[1];
  ASSERT_TRUE(first.tile && second.tile);
  ASSERT_NE(*first.tile, *second.tile);
  EXPECT_EQ(shown_kernel(state).name, first.name);
  for (const OurKernel& shown : {first, second}) {
    SCOPED_TRACE(shown.name);
    choose_kernel(state, shown.name);
    const OurKernel other = shown.name == first.name ? second : first;
    EXPECT_EQ(state.tile, *shown.tile);
    const ScenarioModel& model = state.model();
    EXPECT_EQ(model.tile, *shown.tile);
    const auto c = measured_configuration(state, model, Pass::fwd);
    ASSERT_TRUE(c);
    const std::vector<SourceRatios>& ratios = state.results.ratios(*c, false);
    const std::vector<ChainStage> chain = ratio_chain(model, Implementation::packed, ratios, shown_kernel(state).name);
    const SourceRatios* ours = ratios_of(ratios, ours_family, shown.name);
    const SourceRatios* beside = ratios_of(ratios, ours_family, other.name);
    ASSERT_TRUE(ours && beside);
    EXPECT_TRUE(says(chain[1].detail, tile_name(*shown.tile))) << chain[1].detail;
    EXPECT_TRUE(says(chain[2].label, shown.name)) << chain[2].label;
    EXPECT_DOUBLE_EQ(*chain[2].ratio, *ours->vs_varlen(Implementation::packed));
    EXPECT_TRUE(says(chain[2].detail, other.name + ": " + format_ratio(*beside->vs_varlen(Implementation::packed))))
        << chain[2].detail;
    // The Story's tiles step names the kernel shown at its tile and the other at its own.
    open_story_step(state, 3);
    EXPECT_EQ(state.tile, *shown.tile);
    const std::string tiles = story_paragraph(state, 3);
    EXPECT_TRUE(says(tiles, format_ratio(state.model().costs[Implementation::packed].computed_vs_varlen) + " in the " +
                                tile_name(*shown.tile) + " tiles of " + shown.name))
        << tiles;
    EXPECT_TRUE(
        says(tiles, format_ratio(state.model().costs_at(*other.tile)[Implementation::packed].computed_vs_varlen) +
                        " in the " + tile_name(*other.tile) + " tiles of " + other.name))
        << tiles;
  }
  // A tile picked by hand makes the kernel of that tile ours.
  ASSERT_TRUE(set_tile(state, *first.tile));
  follow_tile(state);
  EXPECT_EQ(shown_kernel(state).name, first.name);
}

}  // namespace
}  // namespace attnlab::gui
