// The Timings view's data are derived once per change of the rows or of its choices, not per
// frame (a file of 65,536 rows took 15-20 s a frame to group), and hold the ratios the table shows.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/scenario/scenario_file.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/views/timings/timings_data.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

constexpr const char* hopper = "wgmma-sm90";
constexpr const char* teaching = "mma-sm80";

class TimingsDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(folder);
    write_results_csv(folder / "attnlab-bench.csv", {our_row("naive", 1749, "cublas"), our_row("packed", 1300, hopper),
                                                     our_row("varlen", 230, hopper), our_row("packed", 2234, teaching),
                                                     our_row("varlen", 376, teaching)});
    write_results_csv(folder / "peers.csv", {peer_row("torch-varlen_attn", "varlen", 468),
                                             peer_row("torch-sdpa-flash-packed", "packed", 1700)});
    state.scenario = load_scenario("uniform-64x512");
    state.results.load_folder(folder);
  }
  void TearDown() override { std::filesystem::remove_all(folder); }

  const std::filesystem::path folder = unique_temp_path("timings-data");
  AppState state;
};

TEST_F(TimingsDataTest, MadeOncePerChangeNotPerFrame) {
  const ScenarioModel& model = state.model();
  const TimingsData* first = &timings_data(state, model);
  for (int frame = 0; frame < 3; ++frame) EXPECT_EQ(&timings_data(state, model), first);
  EXPECT_EQ(first->runs.size(), 7u);
  // Another choice, or another file loaded: made again, with the new rows.
  state.pass = Pass::bwd;
  EXPECT_NE(&timings_data(state, model), first);
  state.pass = Pass::fwd;
  write_results_csv(folder / "more.csv", {our_row("padded", 240, hopper)});
  state.results.load(folder / "more.csv");
  EXPECT_EQ(timings_data(state, model).runs.size(), 8u);
}

// Each row's ratios: against our varlen of each kernel (ours only against its own kernel,
// naive and the peers against both) and against its own family's varlen.
TEST_F(TimingsDataTest, EachRowsRatiosAreThoseOfItsKernelAndFamily) {
  const TimingsData& d = timings_data(state, state.model());
  ASSERT_EQ(d.versus, (std::vector<std::string>{hopper, teaching}));
  for (std::size_t i = 0; i < d.runs.size(); ++i) {
    const ResultRow& r = *d.runs[i].primary.row;
    const TimingsRow& row = d.rows[i];
    if (r.source == "attnlab" && r.kernel == hopper && r.implementation == "packed") {
      EXPECT_DOUBLE_EQ(*row.vs_our_varlen[0], 1300.0 / 230);
      EXPECT_FALSE(row.vs_our_varlen[1]);
      EXPECT_DOUBLE_EQ(*row.vs_own_varlen, 1300.0 / 230);
    }
    if (r.source == "attnlab" && r.implementation == "naive") {
      EXPECT_DOUBLE_EQ(*row.vs_our_varlen[0], 1749.0 / 230);
      EXPECT_DOUBLE_EQ(*row.vs_our_varlen[1], 1749.0 / 376);
    }
    if (r.source == "torch-sdpa-flash-packed") {
      EXPECT_DOUBLE_EQ(*row.vs_our_varlen[1], 1700.0 / 376);
      EXPECT_DOUBLE_EQ(*row.vs_own_varlen, 1700.0 / 468);
    }
  }
}

}  // namespace
}  // namespace attnlab::gui
