// Two flash kernels of ours in one set of results (the teaching mma-sm80, the Hopper
// wgmma-sm90): each (implementation, kernel) is its own run, never merged with the
// other kernel's or averaged with it; each kernel's ratios are its own; files with
// one kernel read as they did before kernels were told apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

#include "analysis/number_format.hpp"
#include "analysis/pass_pairs.hpp"
#include "analysis/source_ratios.hpp"
#include "core/layout/tile_name.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/views/ratio_chain.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

constexpr const char* hopper = "wgmma-sm90";
constexpr const char* teaching = "mma-sm80";

ResultRow backward(ResultRow r) {
  r.pass = Pass::bwd;
  return r;
}

// The bench file as a default run on an H100 would write it (the Hopper kernel's rows
// first), an `attnlab run` file with another run of each kernel's varlen and the
// teaching kernel's backward, and the peers.
class TwoKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(folder);
    write_results_csv(
        folder / "attnlab-bench.csv",
        {our_row("naive", 1749, "cublas"), our_row("padded", 240, hopper), our_row("packed", 1300, hopper),
         our_row("varlen", 230, hopper), our_row("padded", 380, teaching), our_row("packed", 2234, teaching),
         our_row("varlen", 376, teaching)});
    write_results_csv(folder / "attnlab-run.csv",
                      {our_row("varlen", 379, teaching), backward(our_row("varlen", 2009, teaching)),
                       our_row("varlen", 228, hopper)});
    write_results_csv(folder / "peers.csv", {peer_row("torch-varlen_attn", "varlen", 468),
                                             peer_row("torch-sdpa-flash-packed", "packed", 1700)});
    load_results_folder(results, folder);
  }
  void TearDown() override { std::filesystem::remove_all(folder); }

  const std::filesystem::path folder = unique_temp_path("two-kernels");
  LoadedResults results;
  const Configuration own = own_configuration(load_scenario("uniform-64x512"));
};

TEST_F(TwoKernels, EachKernelsRowsAreTheirOwnRunWithTheirOwnSpread) {
  EXPECT_EQ(our_flash_kernels(results), (std::vector<std::string>{hopper, teaching}));
  const std::vector<MeasuredRun> varlen = primary_runs(results, [&](const ResultRow& r) {
    return r.source == "attnlab" && r.implementation == "varlen" && own.holds(r);
  });
  ASSERT_EQ(varlen.size(), 2u);  // not one run of four rows
  EXPECT_EQ(varlen[0].primary.row->kernel, hopper);
  EXPECT_EQ(varlen[0].primary.row->median_us, 230);  // the row itself, not a mean with the other kernel's
  ASSERT_EQ(varlen[0].others.size(), 1u);
  EXPECT_EQ(varlen[0].others[0].row->median_us, 228);
  EXPECT_EQ(varlen[1].primary.row->kernel, teaching);
  EXPECT_EQ(varlen[1].primary.row->median_us, 376);
  EXPECT_EQ(spread_text(varlen[1]), "2 runs: 376 \xC2\xB5s to 379 \xC2\xB5s");
  EXPECT_EQ(find_run(results, own, "attnlab", "packed", teaching)->primary.row->median_us, 2234);
  EXPECT_EQ(find_run(results, own, "attnlab", "packed", hopper)->primary.row->median_us, 1300);
  EXPECT_EQ(find_run(results, own, "attnlab", "packed")->primary.row->kernel,
            hopper);                                                   // no kernel asked: the first in the files
  EXPECT_FALSE(find_run(results, own, "attnlab", "naive", teaching));  // naive's kernel is cuBLAS
}

TEST_F(TwoKernels, EachKernelsRatiosAreWithinItsOwnRows) {
  const std::vector<SourceRatios> ratios = source_ratios(results, own, true);
  ASSERT_EQ(ratios.size(), 3u);  // ours twice, FlashAttention-2
  const SourceRatios* first = ratios_of(ratios, ours_family);
  const SourceRatios* fast = ratios_of(ratios, ours_family, hopper);
  const SourceRatios* slow = ratios_of(ratios, ours_family, teaching);
  ASSERT_TRUE(first && fast && slow);
  EXPECT_EQ(first, fast);
  EXPECT_EQ(fast->label(), "attnlab \xC2\xB7 wgmma-sm90");
  EXPECT_EQ(slow->label(), "attnlab \xC2\xB7 mma-sm80");
  EXPECT_DOUBLE_EQ(*fast->vs_varlen(Implementation::packed), 1300.0 / 230.0);
  EXPECT_DOUBLE_EQ(*fast->vs_varlen(Implementation::padded), 240.0 / 230.0);
  EXPECT_DOUBLE_EQ(*slow->vs_varlen(Implementation::packed), 2234.0 / 376.0);
  EXPECT_DOUBLE_EQ(*slow->vs_varlen(Implementation::padded), 380.0 / 376.0);
  // naive's cuBLAS run stands beside each kernel's varlen.
  EXPECT_DOUBLE_EQ(*fast->vs_varlen(Implementation::naive), 1749.0 / 230.0);
  EXPECT_DOUBLE_EQ(*slow->vs_varlen(Implementation::naive), 1749.0 / 376.0);
  const SourceRatios* fa2 = ratios_of(ratios, fa2_family);
  ASSERT_TRUE(fa2);
  EXPECT_EQ(fa2->label(), "FlashAttention-2");
  EXPECT_DOUBLE_EQ(*fa2->vs_varlen(Implementation::packed), 1700.0 / 468.0);
}

// A kernel measured on varlen alone (as kernels/device_run.sh's ladder runs it) has no
// packed ratio: the other kernel's packed run is never divided by its varlen.
TEST_F(TwoKernels, AKernelWithoutAPackedRunHasNoPackedRatio) {
  write_results_csv(folder / "attnlab-bench.csv", {our_row("varlen", 230, hopper), our_row("packed", 2234, teaching),
                                                   our_row("varlen", 376, teaching)});
  results = {};
  load_results_folder(results, folder);
  const std::vector<SourceRatios> ratios = source_ratios(results, own, true);
  const SourceRatios* fast = ratios_of(ratios, ours_family, hopper);
  ASSERT_TRUE(fast && fast->varlen());
  EXPECT_FALSE(fast->run(Implementation::packed));
  EXPECT_FALSE(fast->vs_varlen(Implementation::packed));
  EXPECT_DOUBLE_EQ(*ratios_of(ratios, ours_family, teaching)->vs_varlen(Implementation::packed), 2234.0 / 376.0);
}

// The teaching kernel's forward pairs with its backward; the Hopper kernel's forward
// has no backward row in these files and is not summed with the teaching kernel's.
TEST_F(TwoKernels, AForwardPairsOnlyWithItsOwnKernelsBackward) {
  const std::vector<PassPair> pairs =
      pass_pairs(results, own_configuration(load_scenario("uniform-64x512"), Pass::bwd));
  const auto pair_of = [&](const char* kernel) -> const PassPair* {
    for (const PassPair& p : pairs)
      if (p.source == "attnlab" && p.implementation == "varlen" && p.kernel == kernel) return &p;
    return nullptr;
  };
  const PassPair *slow = pair_of(teaching), *fast = pair_of(hopper);
  ASSERT_TRUE(slow && fast);
  ASSERT_TRUE(slow->one_build);
  EXPECT_EQ(file_name(*slow->fwd), "attnlab-run.csv");
  EXPECT_EQ(file_name(*slow->bwd), "attnlab-run.csv");
  EXPECT_EQ(slow->sum_us(), 379.0 + 2009.0);
  EXPECT_EQ(*fast->fwd->row->median_us, 230);
  EXPECT_FALSE(fast->bwd);
  EXPECT_FALSE(fast->sum_us());
}

// The Costs view's chain times the kernel shown (the model at its tile, the rows' tile
// column) and sets the other beside it at its own tile.
TEST(TwoKernelTiles, TheChainTimesTheKernelShownAndTheOtherBesideIt) {
  const auto folder = unique_temp_path("two-kernel-tiles");
  std::filesystem::remove_all(folder);
  const auto at = [](ResultRow r, const char* tile) {
    r.tile = tile;
    return r;
  };
  write_results_csv(folder / "attnlab-bench.csv",
                    {at(our_row("packed", 912, hopper), "128x128"), at(our_row("varlen", 211, hopper), "128x128"),
                     at(our_row("packed", 2190, teaching), "64x64"), at(our_row("varlen", 386, teaching), "64x64")});
  LoadedResults results;
  load_results_folder(results, folder);
  const Scenario s = load_scenario("uniform-64x512");
  const std::vector<SourceRatios> ratios = source_ratios(results, own_configuration(s), true);
  EXPECT_EQ(kernel_tile(results, teaching), (TileShape{64, 64}));
  EXPECT_EQ(kernel_tile(results, hopper), (TileShape{128, 128}));
  for (const auto& [tile, kernel, ratio, other, other_ratio] :
       {std::tuple{TileShape{64, 64}, teaching, 2190.0 / 386.0, hopper, 912.0 / 211.0},
        std::tuple{TileShape{128, 128}, hopper, 912.0 / 211.0, teaching, 2190.0 / 386.0}}) {
    SCOPED_TRACE(kernel);
    const ScenarioModel model = build_model(s, tile);
    const std::vector<ChainStage> chain = ratio_chain(model, Implementation::packed, ratios, kernel);
    ASSERT_EQ(chain.size(), 4u);
    EXPECT_NE(chain[2].label.find(kernel), std::string::npos) << chain[2].label;
    ASSERT_TRUE(chain[2].ratio);
    EXPECT_DOUBLE_EQ(*chain[2].ratio, ratio);
    const TileShape other_tile = tile == TileShape{64, 64} ? TileShape{128, 128} : TileShape{64, 64};
    EXPECT_NE(chain[2].detail.find(std::string("beside it ") + other + ": " + format_ratio(other_ratio) + " (its " +
                                   tile_name(other_tile) + " tiles compute " +
                                   format_ratio(model.costs_at(other_tile)[Implementation::packed].computed_vs_varlen)),
              std::string::npos)
        << chain[2].detail;
  }
  std::filesystem::remove_all(folder);
}

// One kernel (today's shipped files): nothing is named, the ratios are those of the
// same rows without a kernel column.
TEST(OneKernel, NothingIsNamedAndTheRatiosAreUnchanged) {
  const auto folder = unique_temp_path("one-kernel");
  std::filesystem::remove_all(folder);
  const Configuration own = own_configuration(load_scenario("uniform-64x512"));
  // The ratios point into the rows they were taken from: `results` outlives them.
  const auto ratios_with = [&](LoadedResults& results, const char* kernel, const char* naive_kernel) {
    write_results_csv(folder / "attnlab-bench.csv", {our_row("naive", 1749, naive_kernel),
                                                     our_row("packed", 2234, kernel), our_row("varlen", 376, kernel)});
    load_results_folder(results, folder);
    EXPECT_EQ(our_flash_kernels(results).size(), 1u);
    return source_ratios(results, own, true);
  };
  LoadedResults with_kernels, without_kernels;
  const std::vector<SourceRatios> named = ratios_with(with_kernels, teaching, "cublas"),
                                  unnamed = ratios_with(without_kernels, "", "");
  ASSERT_EQ(named.size(), 1u);
  ASSERT_EQ(unnamed.size(), 1u);
  EXPECT_FALSE(named[0].kernel_named);
  EXPECT_EQ(named[0].label(), "attnlab");
  for (Implementation i : all_implementations) EXPECT_EQ(named[0].vs_varlen(i), unnamed[0].vs_varlen(i));
  EXPECT_DOUBLE_EQ(*named[0].vs_varlen(Implementation::packed), 2234.0 / 376.0);
  EXPECT_EQ(run_label(our_row("varlen", 376, teaching), false), "varlen");
  EXPECT_EQ(run_label(our_row("varlen", 376, teaching), true), "varlen \xC2\xB7 mma-sm80");
  EXPECT_EQ(run_label(peer_row("torch-varlen_attn", "varlen", 468), true), "varlen");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace attnlab::gui
