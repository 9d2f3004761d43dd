// The training step's chain as bars: every link of the list drawn, whatever links it holds, each
// with the number its value says, what kind of figure it is and its files; attention's shares
// reconciled in one table; a family whose step no row measured said so.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "analysis/number_format.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/attention_shares.hpp"
#include "gui/views/chain_bars.hpp"
#include "gui/views/step_figures.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

TEST(ChainBars, ValuesReadBackAsTheFormatterWroteThem) {
  for (const double r : {8.0, 3.99, 0.0042, 1022.0})
    EXPECT_EQ(format_ratio(parse_link_value(format_ratio(r))->value), format_ratio(r));
  EXPECT_EQ(parse_link_value("8.30%")->unit, LinkUnit::percent);
  EXPECT_DOUBLE_EQ(parse_link_value("-0.21%")->value, -0.0021);
  EXPECT_DOUBLE_EQ(parse_link_value(format_us(66069))->value, 66069);
  EXPECT_EQ(parse_link_value(format_us(66069))->unit, LinkUnit::microseconds);
  for (const char* text : {"not measured", "", "x", "4.00", "4.00 x", "nan%"})
    EXPECT_FALSE(parse_link_value(text)) << text;
}

// Every link of nanochat-d24's chain is a bar, in the chain's order: the article's count, the
// model's, the predictions, the measured steps and the article's 1.8%, each kind present.
TEST(ChainBars, EveryLinkIsABarOfItsKind) {
  AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  const StepFigures f = step_figures(state);
  const std::vector<ChainLink> chain = step_chain(state.scenario, f.step, f.times, f.measured);
  const std::vector<ChainBar> bars = chain_bars(chain);
  ASSERT_EQ(bars.size(), chain.size());
  std::set<LinkBasis> kinds;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    SCOPED_TRACE(chain[i].label);
    EXPECT_EQ(bars[i].link, &chain[i]);
    EXPECT_EQ(bool(bars[i].number), chain[i].value != "not measured");
    kinds.insert(bars[i].basis);
  }
  EXPECT_EQ(kinds.size(), 4u);
  EXPECT_EQ(bars.front().unit, LinkUnit::ratio);
  EXPECT_EQ(bars.back().basis, LinkBasis::article);
  EXPECT_DOUBLE_EQ(bars.back().number->value, 0.018);
  // The measured savings name the file they come from.
  for (const ChainBar& b : bars)
    if (b.basis == LinkBasis::measured && b.link->label.rfind("measured step saving", 0) == 0 && b.number) {
      EXPECT_NE(b.sources.find(".csv"), std::string::npos) << b.link->how;
    }
}

// Eight shares were said with nothing to tell them apart: each row is the figure of the code that
// computes it, and no two rows describe the same thing.
TEST(AttentionShares, EachShareSaysWhatItCounts) {
  AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  const StepFigures f = step_figures(state);
  const std::vector<AttentionShare> shares = attention_shares(f);
  ASSERT_GE(shares.size(), 8u);
  const StepCost& packed = f.step[Implementation::packed];
  EXPECT_DOUBLE_EQ(shares[0].share, packed.attention_share_full_squares());
  EXPECT_DOUBLE_EQ(shares[1].share, packed.attention_share_computed());
  EXPECT_DOUBLE_EQ(shares[2].share, *f.times[0].attention_share_fwd());
  EXPECT_DOUBLE_EQ(shares[3].share, *f.times[1].attention_share_fwd());
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> described;
  for (const AttentionShare& s : shares) {
    EXPECT_TRUE(described.insert({s.of, s.part, s.layout, s.counted, s.source}).second) << s.source;
    EXPECT_GT(s.share, 0);
    EXPECT_LT(s.share, 1);
  }
  int measured = 0;
  for (const MeasuredStepPair& p : f.measured) {
    if (!p.has_parts()) continue;
    for (const MeasuredStepRun* run : {&*p.packed, &*p.varlen}) {
      const double share = *step_attention_us(run->row) / run->row.median_us;
      EXPECT_TRUE(std::any_of(shares.begin(), shares.end(), [&](const AttentionShare& s) { return s.share == share; }));
      ++measured;
    }
  }
  EXPECT_GE(measured, 4);  // FA2's and ours, packed and varlen
}

// nanochat-d24-no-window ships FA2's and cuDNN's measured steps, not ours: the view says ours
// was not measured (it drew no row at all).
TEST(StepFigures, AFamilyWithoutAMeasuredStepIsNamed) {
  AppState state = make_app_state("nanochat-d24-no-window", shipped_results_folder);
  const StepFigures f = step_figures(state);
  const std::vector<std::string> missing = unmeasured_steps(f);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], f.times[int(KernelFamily::attnlab)].label());
  AppState both = make_app_state("nanochat-d24", shipped_results_folder);
  EXPECT_TRUE(unmeasured_steps(step_figures(both)).empty());
}

}  // namespace
}  // namespace attnlab::gui
