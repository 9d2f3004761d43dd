// Scenario edits through the functions the Scenario view's widgets call: the
// model follows each valid edit, and an invalid one changes nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "analysis/number_format.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/app/scenario_edits.hpp"
#include "temp_path.hpp"

namespace attnlab::gui {
namespace {

AppState article_state() {
  AppState state;
  state.scenario = load_scenario("uniform-64x512");
  return state;
}

TEST(ScenarioEdits, DocumentCountSliderChangesTheLayouts) {
  AppState state = article_state();
  EXPECT_EQ(state.model().layouts->packed.num_rows(), 8);
  EXPECT_FALSE(state.scenario_edited);
  ASSERT_TRUE(set_field(state, *find_scenario_field("documents"), 32));
  EXPECT_TRUE(state.scenario_edited);
  EXPECT_EQ(state.scenario.doc_lengths.size(), 32u);
  EXPECT_EQ(state.model().layouts->packed.num_rows(), 4);
  EXPECT_EQ(state.model().layouts->varlen.buffer_tokens(), 32 * 512);
}

TEST(ScenarioEdits, WindowShrinksEveryLayoutsWorkAndFollowsTheCausalSwitch) {
  AppState state = article_state();
  const auto& before = state.model().costs;
  const std::int64_t packed_before = before[Implementation::packed].scores_computed();
  const std::int64_t varlen_before = before[Implementation::varlen].scores_computed();
  ASSERT_TRUE(set_window(state, {128, 0}));
  const auto& after = state.model().costs;
  EXPECT_LT(after[Implementation::packed].scores_computed(), packed_before);
  EXPECT_LT(after[Implementation::varlen].scores_computed(), varlen_before);
  EXPECT_GT(after[Implementation::varlen].scores[CellKind::window_masked], 0);
  EXPECT_EQ(state.model().layouts->varlen.window, (Window{128, 0}));
  // Not causal: the window keeps its left side; a window of nothing is refused and changes nothing.
  ASSERT_TRUE(set_causal(state, false));
  EXPECT_EQ(state.scenario.window, (Window{128, 0}));
  EXPECT_FALSE(set_window(state, {0, 0}));
  EXPECT_NE(state.scenario_error.find("window"), std::string::npos) << state.scenario_error;
  EXPECT_EQ(state.scenario.window, (Window{128, 0}));
  ASSERT_TRUE(set_window(state, {}));
  EXPECT_FALSE(state.scenario.window.any());
}

TEST(ScenarioEdits, RowLengthMovesThePackedWaste) {
  AppState state = article_state();
  const double before = state.model().costs[Implementation::packed].computed_vs_varlen;
  ASSERT_TRUE(set_field(state, *find_scenario_field("row length"), 512));
  // Rows of one document each: packed is varlen, no bleed.
  EXPECT_EQ(state.model().costs[Implementation::packed].scores[CellKind::bleed], 0);
  EXPECT_DOUBLE_EQ(state.model().costs[Implementation::packed].computed_vs_varlen, 1.0);
  EXPECT_GT(before, 7.0);
}

TEST(ScenarioEdits, CausalOffComputesEveryTile) {
  AppState state = article_state();
  const std::int64_t causal = state.model().costs[Implementation::varlen].scores_computed();
  ASSERT_TRUE(set_causal(state, false));
  EXPECT_EQ(state.model().costs[Implementation::varlen].scores_computed(), std::int64_t(64) * 512 * 512 * 16);
  EXPECT_GT(state.model().costs[Implementation::varlen].scores_computed(), causal);
}

TEST(ScenarioEdits, LengthListAndItsErrors) {
  AppState state = article_state();
  ASSERT_TRUE(set_length_source_kind(state, "list"));
  EXPECT_EQ(state.scenario.doc_lengths.size(), 64u);
  ASSERT_TRUE(set_length_list(state, "100, 200 300"));
  EXPECT_EQ(state.scenario.doc_lengths, (std::vector<int>{100, 200, 300}));
  EXPECT_EQ(state.model().layouts->padded.num_rows(), 3);
  const std::uint64_t version = state.scenario_version;
  EXPECT_FALSE(set_length_list(state, "100, abc"));
  EXPECT_NE(state.scenario_error.find("documents.lengths"), std::string::npos);
  EXPECT_EQ(state.scenario.doc_lengths, (std::vector<int>{100, 200, 300}));
  EXPECT_EQ(state.scenario_version, version);
}

TEST(ScenarioEdits, PadToBelowTheLongestIsRefusedAndChangesNothing) {
  AppState state = article_state();
  EXPECT_FALSE(set_pad_to(state, 100));
  EXPECT_NE(state.scenario_error.find("pad_to"), std::string::npos);
  EXPECT_FALSE(state.scenario.pad_to.has_value());
  ASSERT_TRUE(set_pad_to(state, 1024));
  EXPECT_TRUE(state.scenario_error.empty());
  EXPECT_EQ(state.model().layouts->padded.longest_row(), 1024);
  EXPECT_EQ(state.model().costs[Implementation::padded].scores[CellKind::padding] > 0, true);
}

TEST(ScenarioEdits, LogNormalParametersRedrawTheLengths) {
  AppState state;
  state.scenario = load_scenario("web-mix-2048");
  ASSERT_TRUE(std::holds_alternative<LogNormalLengths>(state.scenario.length_source));
  const std::vector<int> before = state.scenario.doc_lengths;
  ASSERT_TRUE(set_field(state, *find_scenario_field("seed"), 77));
  EXPECT_NE(state.scenario.doc_lengths, before);
  ASSERT_TRUE(set_field(state, *find_scenario_field("longest"), 64));
  for (int len : state.scenario.doc_lengths) EXPECT_LE(len, 64);
  // Fields of another source do not apply.
  EXPECT_FALSE(set_field(state, *find_scenario_field("documents"), 3));
}

TEST(ScenarioEdits, ScenariosTooLargeToDrawAreRefused) {
  AppState state = article_state();
  ASSERT_TRUE(set_field(state, *find_scenario_field("document length"), 32768));  // 64 x 32768 = 2M tokens: fine
  EXPECT_FALSE(set_field(state, *find_scenario_field("documents"), 1024));        // 32M tokens: over the limit
  EXPECT_NE(state.scenario_error.find("at most"), std::string::npos) << state.scenario_error;
  EXPECT_EQ(state.scenario.doc_lengths.size(), 64u);
}

TEST(ScenarioEdits, BackgroundBuildCatchesUpWithTheLatestEdit) {
  AppState state = article_state();
  state.build_model_in_background = true;
  EXPECT_EQ(state.model().layouts->packed.num_rows(), 8);  // the first model is built at once
  ASSERT_TRUE(set_field(state, *find_scenario_field("documents"), 48));
  ASSERT_TRUE(set_field(state, *find_scenario_field("documents"), 16));
  for (int i = 0; i < 500 && !state.model_is_current(); ++i) {
    state.model();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(state.model_is_current());
  EXPECT_EQ(state.model().layouts->packed.num_rows(), 2);
  EXPECT_EQ(state.model().scenario.doc_lengths.size(), 16u);
}

TEST(ScenarioEdits, TileSizeRebuildsTheModel) {
  AppState state = article_state();
  ASSERT_TRUE(set_tile(state, {32, 32}));
  EXPECT_EQ(state.model().tile, (TileShape{32, 32}));
  EXPECT_EQ(state.model().tile_of(Implementation::varlen), (TileShape{32, 32}));
}

TEST(ScenarioEdits, SavedScenarioReadsBackAsEdited) {
  AppState state = article_state();
  ASSERT_TRUE(set_field(state, *find_scenario_field("documents"), 12));
  const auto path = unique_temp_path("saved.toml");
  std::string message;
  ASSERT_TRUE(save_scenario_as(state, path.string(), message)) << message;
  EXPECT_NE(message.find("attnlab model " + path.string()), std::string::npos) << message;  // the CLI's own syntax
  const Scenario back = load_scenario(path.string());
  EXPECT_EQ(back.doc_lengths, state.scenario.doc_lengths);
  EXPECT_EQ(back.row_len, state.scenario.row_len);
  std::filesystem::remove(path);
  state.length_list_edit = "7, 9";  // typed into the lengths box, not applied
  ASSERT_TRUE(open_scenario(state, "one-doc-16384"));
  EXPECT_TRUE(state.length_list_edit.empty());  // the box refills from the opened scenario's lengths
  EXPECT_FALSE(open_scenario(state, "no-such-scenario"));
  EXPECT_FALSE(state.scenario_error.empty());
  EXPECT_EQ(state.scenario.doc_lengths, (std::vector<int>{16384}));
}

// The median slider goes past the longest length; the lengths do not follow, and the view says so.
TEST(ScenarioEdits, AMedianPastTheLongestIsNamed) {
  AppState state = article_state();
  ASSERT_TRUE(set_length_source_kind(state, "lognormal"));
  EXPECT_EQ(length_source_note(state.scenario), "");
  const double longest = find_scenario_field("longest")->get(state.scenario);
  ASSERT_TRUE(set_field(state, *find_scenario_field("median length"), longest + 8000));
  const std::string note = length_source_note(state.scenario);
  EXPECT_NE(note.find("above the longest, " + count_of(std::llround(longest), "token")), std::string::npos) << note;
  EXPECT_NE(note.find(count_of(std::llround(longest + 8000), "token")), std::string::npos) << note;
}

}  // namespace
}  // namespace attnlab::gui
