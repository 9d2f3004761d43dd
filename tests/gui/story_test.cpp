// The Story: it opens first, each step opens its own scenario and view, and its words carry
// the figures the views show (the model's, the loaded results'), never typed-in ones.
#include <gtest/gtest.h>

#include "analysis/number_format.hpp"
#include "analysis/source_ratios.hpp"
#include "analysis/step_chain.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/platform/command_line.hpp"
#include "gui/views/attention_shares.hpp"
#include "gui/views/step_figures.hpp"
#include "gui/views/story_text.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

bool says(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(Story, OpensFirstAndEachStepOpensItsScenarioAndView) {
  AppState state = make_app_state("", shipped_results_folder);
  EXPECT_EQ(state.view, View::story);
  for (int i = 0; i < story_step_count; ++i) {
    const StoryStep& step = story_steps()[i];
    SCOPED_TRACE(step.title);
    open_story_step(state, i);
    EXPECT_EQ(state.story_step, i);
    EXPECT_EQ(state.scenario.name, step.scenario);
    EXPECT_FALSE(state.scenario_edited);
    EXPECT_NE(step.figure, Figure::none);
    const std::string text = story_paragraph(state, i);
    EXPECT_GT(text.size(), 100u) << text;
  }
  // An edit and a step away: the step's shipped scenario comes back.
  open_story_step(state, 0);
  apply_edit(state, [](Scenario& s) { s.row_len = 1024; });
  open_story_step(state, 0);
  EXPECT_FALSE(state.scenario_edited);
  EXPECT_EQ(state.scenario.row_len, 4096);
}

TEST(Story, ItsWordsCarryTheModelsAndTheResultsFigures) {
  AppState state = make_app_state("", shipped_results_folder);
  open_story_step(state, 0);
  const ImplementationCost& packed = state.model().costs[Implementation::packed];
  EXPECT_TRUE(says(story_paragraph(state, 0), format_ratio(packed.attended_vs_varlen)));
  open_story_step(state, 3);  // tiles
  EXPECT_TRUE(says(story_paragraph(state, 3), format_ratio(packed.computed_vs_varlen)));
  // Measured: each of our kernels and FlashAttention-2, named, with its own packed/varlen ratio.
  open_story_step(state, 5);
  const std::string measured = story_paragraph(state, 5);
  const auto c = measured_configuration(state, state.model(), Pass::fwd);
  ASSERT_TRUE(c);
  int named = 0;
  for (const SourceRatios& r : source_ratios(state.results.loaded(), *c, false))
    if (r.family->name == ours_family || r.family->name == fa2_family) {
      ASSERT_TRUE(r.vs_varlen(Implementation::packed));
      EXPECT_TRUE(says(measured, r.family->name + (r.kernel.empty() ? "" : " \xC2\xB7 " + r.kernel) + " " +
                                     format_ratio(*r.vs_varlen(Implementation::packed))))
          << measured;
      ++named;
    }
  EXPECT_GE(named, 3);  // two kernels of ours and FlashAttention-2 ship
  open_story_step(state, 6);
  EXPECT_TRUE(says(story_paragraph(state, 6), "memory-bound"));
  // The measured step: each shipped pair's saving, then the step the article's saving would need.
  open_story_step(state, 8);
  const StepFigures figures = step_figures(state);
  ASSERT_FALSE(figures.measured.empty());
  for (const MeasuredStepPair& p : figures.measured) {
    if (const auto saving = p.saving()) {
      EXPECT_TRUE(says(story_paragraph(state, 8), format_percent(*saving) + " (" + p.setting() + ")")) << p.setting();
    }
  }
  open_story_step(state, 9);
  EXPECT_TRUE(says(story_paragraph(state, 9), "1.80%"));
  EXPECT_TRUE(says(story_paragraph(state, 9), *article_distance(state.scenario, figures.measured)));
}

// Step 2's counts say they are per head, in SI like every other count (they were the article's
// "64.0M", millions of 2^20, unlabelled), and the step draws the three ways to count.
TEST(Story, StepTwosCountsArePerHeadAndDrawn) {
  AppState state = make_app_state("", shipped_results_folder);
  open_story_step(state, 1);
  EXPECT_EQ(story_steps()[1].aside, StoryAside::article_counting);
  const Scenario& s = state.model().scenario;
  const ArticleCounts c = article_counts(s.doc_lengths, s.row_len);
  const std::string text = story_paragraph(state, 1);
  EXPECT_TRUE(says(text, "(" + format_count(double(c.rows_full_squares)) + " scores per head")) << text;
  EXPECT_TRUE(says(text, "(" + format_count(double(c.docs_full_squares) / 2) + " per head)")) << text;
}

// The Story's step 3 says it is zoomed in, and the window opens it zoomed in: --story-step 3
// set the step's zoom, then the flags' (no --mask-cells: the whole picture) replaced it.
TEST(Story, StepThreeOpensZoomedInAsItSays) {
  AppState state = start_state({View::story, 3, "", 1.0f, std::nullopt, Pass::fwd}, shipped_results_folder);
  const double cells = story_steps()[2].mask_cells;
  ASSERT_GT(cells, 0);
  for (const MaskViewport& vp : state.mask_viewports) EXPECT_EQ(vp.fit_cells, cells);
  EXPECT_TRUE(
      says(story_paragraph(state, 2), "Zoomed in on the first " + format_integer(std::llround(cells)) + " tokens"));
  // Another view with --mask-cells starts there; without it, on the whole picture.
  const AppState masks = start_state({View::masks, 1, "long-tail", 1.0f, 96, Pass::fwd}, shipped_results_folder);
  EXPECT_EQ(masks.mask_viewports[0].fit_cells, 96);
  EXPECT_EQ(masks.scenario.name, "long-tail");
}

// Step 8 is about the table of attention's shares: it opens the Training step with that table
// framed, and its paragraph counts the table's rows, names the least and the most, and says the
// table is the framed one.
TEST(Story, StepEightFramesTheSharesTableItCounts) {
  AppState state = make_app_state("", shipped_results_folder);
  open_story_step(state, 7);
  EXPECT_EQ(story_steps()[7].view, View::step);
  EXPECT_EQ(story_steps()[7].figure, Figure::step_shares);
  const std::vector<AttentionShare> shares = attention_shares(step_figures(state));
  ASSERT_GE(shares.size(), 8u);
  const auto [least, most] = std::minmax_element(
      shares.begin(), shares.end(), [](const AttentionShare& a, const AttentionShare& b) { return a.share < b.share; });
  const std::string text = story_paragraph(state, 7);
  EXPECT_TRUE(says(text, "The GUI states it " + count_of(std::ssize(shares), "way") + ", from " +
                             format_percent(least->share) + " ("))
      << text;
  EXPECT_TRUE(says(text, ") to " + format_percent(most->share) + " (")) << text;
  EXPECT_TRUE(says(text, "the framed table says which is which")) << text;
}

}  // namespace
}  // namespace attnlab::gui
