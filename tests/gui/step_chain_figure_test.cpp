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

TEST(ChainBars, TheUnitIsTheValuesAsTheFormatterWroteIt) {
  EXPECT_EQ(unit_of_value(format_ratio(3.99)), LinkUnit::ratio);
  EXPECT_EQ(unit_of_value(format_percent(0.083)), LinkUnit::percent);
  EXPECT_EQ(unit_of_value(format_percent(-0.0021)), LinkUnit::percent);
  EXPECT_EQ(unit_of_value(format_us(66069)), LinkUnit::microseconds);
  for (const char* text : {"not measured", "", "x", "nan%"}) EXPECT_FALSE(unit_of_value(text)) << text;
}

// Every link of nanochat-d24's chain is a bar, in the chain's order (the steps on the way only
// when asked for), each unit its value's, a "not measured" link on its neighbour's scale; what
// each rests on is the link's own (counted, predicted, measured, reported), all four present.
TEST(ChainBars, EveryLinkIsABarInTheChainsOrder) {
  AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  const StepFigures f = step_figures(state);
  const std::vector<ChainLink> chain = step_chain(state.scenario, f.step, f.times, f.measured);
  const std::vector<ChainBar> all = chain_bars(chain, true), main_links = chain_bars(chain, false);
  ASSERT_EQ(all.size(), chain.size());
  std::size_t details = 0;
  std::set<LinkEvidence> kinds;
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(chain[i].label);
    EXPECT_EQ(all[i].link, &chain[i]);
    if (const auto unit = unit_of_value(chain[i].value)) {
      EXPECT_EQ(all[i].unit, *unit);
    }
    details += chain[i].detail;
    kinds.insert(chain[i].evidence);
  }
  EXPECT_EQ(main_links.size(), chain.size() - details);
  EXPECT_GT(details, 0u);
  for (const ChainBar& b : main_links) EXPECT_FALSE(b.link->detail);
  EXPECT_EQ(kinds.size(), 4u);
  EXPECT_EQ(all.front().unit, LinkUnit::ratio);
  EXPECT_EQ(all.back().link->evidence, LinkEvidence::reported);
  EXPECT_EQ(all.back().unit, LinkUnit::percent);
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

// Where the results hold FA2's measured step of these documents and not ours (nanochat-d24-no-window
// before its attnlab rows shipped), the view says ours was not measured: it drew no row at all.
TEST(StepFigures, AFamilyWithoutAMeasuredStepIsNamed) {
  AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  StepFigures f = step_figures(state);
  EXPECT_TRUE(unmeasured_steps(f).empty());
  const std::string ours = f.times[int(KernelFamily::attnlab)].label();
  std::erase_if(f.measured, [&](const MeasuredStepPair& p) { return p.label() == ours; });
  ASSERT_FALSE(f.measured.empty());
  EXPECT_EQ(unmeasured_steps(f), std::vector<std::string>{ours});
}

}  // namespace
}  // namespace attnlab::gui
