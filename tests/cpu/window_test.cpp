// Sliding windows from the scenario file to the reference: FlashAttention's
// window_size semantics, errors that name the file and key, a round trip through
// save_scenario, and the tiled (flash) reference equal to the plain one under a window.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/cost/cost_model.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

const std::string head = "why = \"A window test.\"\nheads = 2\nhead_dim = 64\ndtype = \"bf16\"\nrow_len = 256\n";
const std::string docs = "\n[documents]\nsource = \"list\"\nlengths = [100, 300, 7]\n";

fs::path write_scenario(const std::string& name, const std::string& lines) {
  const fs::path p = fs::path(::testing::TempDir()) / (name + ".toml");
  std::ofstream(p) << head << lines << docs;
  return p;
}

std::string load_error(const std::string& lines) {
  const fs::path p = write_scenario("window_bad", lines);
  try {
    load_scenario(p.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Window, CausalScenarioTakesKeysToTheLeft) {
  const Scenario s = load_scenario(write_scenario("window_causal", "causal = true\nwindow = 128\n").string());
  EXPECT_EQ(s.window, (Window{128, 0}));
  EXPECT_EQ(s.varlen_layout().window, (Window{128, 0}));
  EXPECT_EQ(s.packed_layout().window, (Window{128, 0}));
}

TEST(Window, NonCausalScenarioTakesLeftAndRight) {
  const Scenario s = load_scenario(write_scenario("window_full", "causal = false\nwindow = [16, 0]\n").string());
  EXPECT_EQ(s.window, (Window{16, 0}));
}

TEST(Window, NoKeyMeansNoWindow) {
  const Scenario s = load_scenario(write_scenario("window_none", "causal = true\n").string());
  EXPECT_FALSE(s.window.any());
}

TEST(Window, BadValuesNameTheFileAndTheKey) {
  for (const std::string& lines :
       {std::string("causal = true\nwindow = 0\n"), std::string("causal = true\nwindow = -3\n"),
        std::string("causal = true\nwindow = [4, 4]\n"), std::string("causal = false\nwindow = 5\n"),
        std::string("causal = false\nwindow = [0, 0]\n"), std::string("causal = false\nwindow = [-1, 4]\n"),
        std::string("causal = false\nwindow = [1, 2, 3]\n"), std::string("causal = true\nwindow = \"512\"\n")}) {
    const std::string message = load_error(lines);
    EXPECT_NE(message.find("window_bad.toml"), std::string::npos) << lines << " -> " << message;
    EXPECT_NE(message.find("window:"), std::string::npos) << lines << " -> " << message;
  }
}

TEST(Window, SavedScenarioReadsBackWithItsWindow) {
  for (const std::string& lines :
       {std::string("causal = true\nwindow = 64\n"), std::string("causal = false\nwindow = [3, 9]\n")}) {
    const Scenario s = load_scenario(write_scenario("window_source", lines).string());
    const fs::path copy = fs::path(::testing::TempDir()) / "window_copy.toml";
    save_scenario(s, copy);
    EXPECT_EQ(load_scenario(copy.string()).window, s.window);
  }
}

// The window removes what it should from the model: every implementation's useful
// scores shrink the same way, and wasted ones appear as window_masked.
TEST(Window, ModelCountsUsefulScoresInsideTheWindowOnly) {
  Scenario s = load_scenario(write_scenario("window_model", "causal = true\n").string());
  const CostModel full = model_costs(s);
  s.window = {16, 0};
  const CostModel windowed = model_costs(s);
  // Per head and document of length L: sum over q of min(q, 16) + 1.
  std::int64_t useful = 0;
  for (int length : {100, 300, 7})
    for (int q = 0; q < length; ++q) useful += std::min(q, 16) + 1;
  for (Implementation i : {Implementation::naive, Implementation::padded, Implementation::varlen})
    EXPECT_EQ(windowed[i].scores_useful(), useful * s.heads) << implementation_name(i);
  EXPECT_LT(windowed[Implementation::varlen].scores_computed(), full[Implementation::varlen].scores_computed());
  EXPECT_GT(windowed[Implementation::varlen].scores[CellKind::window_masked], 0);
}

TEST(Window, TiledReferenceEqualsPlainUnderAWindow) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<int> lengths(1 + rng() % 4);
    for (int& len : lengths) len = 1 + rng() % 60;
    std::int64_t tokens = 0;
    for (int len : lengths) tokens += len;
    const bool causal = trial % 2 == 0;
    const Window w = causal ? Window{1 + int(rng() % 20), 0} : Window{int(rng() % 10), int(rng() % 10) + 1};
    const int longest = *std::max_element(lengths.begin(), lengths.end());
    const AttentionInputs in = make_random_inputs(tokens, 2, 1, 8, DType::bf16, trial);
    for (const Layout& layout :
         {make_varlen_layout(lengths, causal, w), make_padded_layout(lengths, longest + 3, causal, w),
          make_packed_layout(lengths, 32, PackingPolicy::concatenate, causal, w)}) {
      const ReferenceOutput plain = reference_materialized(layout, in, 0.3);
      for (TileShape tile : {TileShape{4, 4}, TileShape{16, 8}, TileShape{5, 13}}) {
        const ReferenceOutput tiled = reference_tiled(layout, in, 0.3, tile);
        ASSERT_EQ(plain.o.size(), tiled.o.size());
        for (std::size_t i = 0; i < plain.o.size(); ++i)
          ASSERT_NEAR(plain.o[i], tiled.o[i], 1e-12) << layout_kind_name(layout.kind) << " trial " << trial;
      }
    }
  }
}

}  // namespace
}  // namespace attnlab
