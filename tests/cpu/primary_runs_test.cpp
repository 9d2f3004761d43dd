// Which run of a configuration stands (the primary run: the first file in name order),
// the spread of the others, and each source's own ratios, on made-up files.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/measured_summary.hpp"
#include "analysis/primary_runs.hpp"
#include "analysis/results_order.hpp"
#include "analysis/source_ratios.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/test_folder.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

TEST(PrimaryRuns, FilesAreOrderedByTheirNameWithoutTheExtension) {
  // "-" sorts before ".", so plain name order would put the variants file first.
  EXPECT_TRUE(results_file_order("r/attnlab-bench.csv", "r/attnlab-bench-variants.csv"));
  EXPECT_TRUE(results_file_order("r/attnlab-bench-variants.csv", "r/attnlab-run.csv"));
  EXPECT_TRUE(results_file_order("r/peers.csv", "r/peers-variants.csv"));
  EXPECT_FALSE(results_file_order("r/peers.csv", "r/peers.csv"));
  EXPECT_TRUE(results_file_order("a/x.csv", "b/x.csv"));  // same name: the path decides
}

TEST(PrimaryRuns, TheFirstFileHoldingAConfigurationGivesThePrimaryRunTheOthersItsSpread) {
  const auto folder = test_folder_path("attnlab-primary-");
  std::filesystem::remove_all(folder);
  ResultRow d64 = our_row("packed", 1324);
  d64.head_dim = 64;
  write_results_csv(folder / "attnlab-run.csv", {our_row("packed", 2089)});
  write_results_csv(folder / "attnlab-bench-variants.csv", {d64, our_row("packed", 2119), our_row("varlen", 379)});
  write_results_csv(folder / "attnlab-bench.csv", {our_row("varlen", 376), our_row("packed", 2234)});
  LoadedResults results;
  load_results_folder(results, folder);
  ASSERT_EQ(results.files.size(), 3u);
  EXPECT_EQ(results.files[0].path.filename(), "attnlab-bench.csv");
  const Configuration own = own_configuration(load_scenario("uniform-64x512"));
  const auto packed = find_run(results, own, "attnlab", "packed");
  ASSERT_TRUE(packed);
  EXPECT_EQ(packed->primary.row->median_us, 2234);
  EXPECT_EQ(file_name(packed->primary), "attnlab-bench.csv");
  ASSERT_EQ(packed->runs(), 3u);
  EXPECT_EQ(file_name(packed->others[0]), "attnlab-bench-variants.csv");
  EXPECT_EQ(file_name(packed->others[1]), "attnlab-run.csv");
  EXPECT_EQ(packed->fastest_us(), 2089);
  EXPECT_EQ(packed->slowest_us(), 2234);
  EXPECT_EQ(spread_text(*packed), "3 runs: 2,089 \xC2\xB5s to 2,234 \xC2\xB5s");
  const auto varlen = find_run(results, own, "attnlab", "varlen");
  ASSERT_TRUE(varlen);
  EXPECT_EQ(varlen->primary.row->median_us, 376);
  EXPECT_EQ(spread_text(*varlen), "2 runs: 376 \xC2\xB5s to 379 \xC2\xB5s");
  // The head-dim-64 row is another configuration, alone in its file.
  Configuration d64_config = own;
  d64_config.head_dim = 64;
  const auto other = find_run(results, d64_config, "attnlab", "packed");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->runs(), 1u);
  EXPECT_EQ(spread_text(*other), "");
  // Measured first or not, the scenario's own shape is offered first.
  const std::vector<Configuration> shapes = measured_configurations({*other, *packed}, own);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0], own);
  EXPECT_EQ(shapes[1], d64_config);
  // Each source's own ratio comes from its primary runs: 2234 / 376.
  const std::vector<SourceRatios> ratios = source_ratios(results, own, true);
  ASSERT_EQ(ratios.size(), 1u);
  EXPECT_EQ(ratios[0].family->name, ours_family);
  EXPECT_DOUBLE_EQ(*ratios[0].vs_varlen(Implementation::packed), 2234.0 / 376.0);
  EXPECT_FALSE(ratios[0].vs_varlen(Implementation::padded));
  std::filesystem::remove_all(folder);
}

TEST(SourceRatios, APeerWithoutVarlenUsesItsPaddedRunOnlyWherePaddedEqualsVarlen) {
  const auto folder = test_folder_path("attnlab-peer-ratios-");
  std::filesystem::remove_all(folder);
  ResultRow padded = our_row("padded", 190), packed = our_row("packed", 915);
  padded.source = "torch-sdpa-cudnn-padded";
  packed.source = "torch-sdpa-cudnn-packed";
  write_results_csv(folder / "peers.csv", {padded, packed});
  LoadedResults results;
  load_results_folder(results, folder);
  const Configuration own = own_configuration(load_scenario("uniform-64x512"));
  const std::vector<SourceRatios> equal = source_ratios(results, own, true);
  ASSERT_EQ(equal.size(), 1u);
  EXPECT_EQ(equal[0].family->name, "cuDNN");
  EXPECT_TRUE(equal[0].padded_stands_for_varlen);
  EXPECT_DOUBLE_EQ(*equal[0].vs_varlen(Implementation::packed), 915.0 / 190.0);
  const std::vector<SourceRatios> unequal = source_ratios(results, own, false);
  ASSERT_EQ(unequal.size(), 1u);
  EXPECT_FALSE(unequal[0].padded_stands_for_varlen);
  EXPECT_FALSE(unequal[0].vs_varlen(Implementation::packed));
  std::filesystem::remove_all(folder);
}

// One line per pass and implementation: our fastest kernel's primary run, the fastest
// peer's primary run of that layout (not a later file's faster repeat), nothing invented.
TEST(MeasuredSummary, OursTheBestPeerAndTheirRatioPerPassAndImplementation) {
  const auto folder = test_folder_path("attnlab-summary-");
  std::filesystem::remove_all(folder);
  ResultRow bwd = our_row("varlen", 1000, "wgmma-sm90");
  bwd.pass = Pass::bwd;
  write_results_csv(folder / "a.csv", {our_row("varlen", 300, "mma-sm80"), our_row("varlen", 200, "wgmma-sm90"),
                                       peer_row("torch-varlen_attn", "varlen", 250),
                                       peer_row("torch-flex-document-mask", "varlen", 400), bwd});
  write_results_csv(folder / "b.csv", {peer_row("torch-varlen_attn", "varlen", 150), our_row("packed", 900)});
  LoadedResults results;
  load_results_folder(results, folder);
  const std::vector<SummaryLine> lines = measured_summary(results, own_configuration(load_scenario("uniform-64x512")));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].implementation, Implementation::packed);
  EXPECT_FALSE(lines[0].best_peer);
  EXPECT_FALSE(lines[0].peer_over_ours());
  EXPECT_EQ(lines[1].implementation, Implementation::varlen);
  EXPECT_EQ(lines[1].ours->primary.row->kernel, "wgmma-sm90");
  EXPECT_EQ(lines[1].best_peer->primary.row->median_us, 250);
  EXPECT_EQ(lines[1].best_peer->runs(), 2u);
  EXPECT_DOUBLE_EQ(*lines[1].peer_over_ours(), 250.0 / 200.0);
  EXPECT_EQ(lines[2].pass, Pass::bwd);
  EXPECT_FALSE(lines[2].best_peer);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace attnlab
