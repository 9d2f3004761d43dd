// The backward pass in the GUI: the Costs view's figures are core/cost/backward_cost's, for
// the scenario and tile shown; the Timings view's forward + backward sums are the two
// rows' medians of one results file, and a pass no file holds is missing, not zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "analysis/number_format.hpp"
#include "analysis/pass_pairs.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/views/backward_callouts.hpp"
#include "shipped_results.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// core's backward model, built here from the scenario alone (not through ScenarioModel).
BackwardModel core_backward(const Scenario& s, TileShape tile) { return model_backward_costs(s, model_costs(s, tile)); }

TEST(BackwardCosts, TheViewsModelIsCoresForTheScenarioAndTileShown) {
  for (const char* name : {"one-doc-16384", "long-tail", "web-mix-2048-window512"}) {
    SCOPED_TRACE(name);
    const Scenario s = load_scenario(name);
    for (const TileShape tile : {TileShape{64, 64}, TileShape{128, 64}}) {
      const ScenarioModel model = build_model(s, tile);
      ASSERT_TRUE(model.ok()) << model.error;
      const BackwardModel core = core_backward(s, tile);
      for (Implementation i : all_implementations) {
        SCOPED_TRACE(implementation_name(i));
        const BackwardCost &shown = model.backward_of(i), &expected = core[static_cast<int>(i)];
        EXPECT_EQ(shown.gemms, expected.gemms);
        EXPECT_EQ(shown.scores_recomputed, expected.scores_recomputed);
        EXPECT_EQ(shown.flops, expected.flops);
        EXPECT_EQ(shown.flops_useful, expected.flops_useful);
        EXPECT_EQ(shown.hbm.total(), expected.hbm.total());
        EXPECT_EQ(shown.workspace_bytes, expected.workspace_bytes);
        EXPECT_EQ(shown.extra_memory_bytes, expected.extra_memory_bytes);
      }
    }
  }
}

// The shipped one-long-document case: naive's backward needs tens of GiB, flash's a
// small part of one, and the call-out prints both of core's figures.
TEST(BackwardCallouts, OneLongDocumentShowsNaivesTensOfGiBAgainstFlash) {
  const Scenario s = load_scenario("one-doc-16384");
  const ScenarioModel model = build_model(s, default_flash_tile);
  const BackwardModel core = core_backward(s, default_flash_tile);
  const BackwardCost &naive = core[static_cast<int>(Implementation::naive)],
                     &varlen = core[static_cast<int>(Implementation::varlen)];
  EXPECT_GT(naive.extra_memory_bytes, std::int64_t{10} << 30);
  EXPECT_LT(varlen.extra_memory_bytes, std::int64_t{1} << 30);
  const std::string text = backward_memory_callout(model);
  EXPECT_TRUE(contains(text, "naive keeps " + format_bytes(double(naive.extra_memory_bytes)))) << text;
  EXPECT_TRUE(contains(text, "varlen keeps " + format_bytes(double(varlen.extra_memory_bytes)))) << text;
  EXPECT_TRUE(contains(text, format_count(double(naive.cells)))) << text;
  EXPECT_TRUE(
      contains(text, format_ratio(double(naive.extra_memory_bytes) / double(varlen.extra_memory_bytes)) + " as much"))
      << text;
  // Another scenario, other figures: the sentence follows the model, it is not written out.
  const Scenario other = load_scenario("uniform-64x512");
  const BackwardModel other_core = core_backward(other, default_flash_tile);
  const std::string other_text = backward_memory_callout(build_model(other, default_flash_tile));
  const std::int64_t other_naive = other_core[static_cast<int>(Implementation::naive)].extra_memory_bytes;
  ASSERT_NE(format_bytes(double(other_naive)), format_bytes(double(naive.extra_memory_bytes)));
  EXPECT_TRUE(contains(other_text, "naive keeps " + format_bytes(double(other_naive)))) << other_text;
}

// Flash: 5 products per score against the forward's 2, i.e. 2.5x; naive, from the P it kept: 4, 2x.
TEST(BackwardCallouts, TheFlopFactorIsTheModels) {
  const Scenario s = load_scenario("uniform-64x512");
  const ScenarioModel model = build_model(s, default_flash_tile);
  const BackwardModel core = core_backward(s, default_flash_tile);
  const BackwardCost &naive = core[static_cast<int>(Implementation::naive)],
                     &varlen = core[static_cast<int>(Implementation::varlen)];
  EXPECT_EQ(varlen.gemms, 5);
  EXPECT_DOUBLE_EQ(varlen.flops_vs_forward, 2.5);
  EXPECT_EQ(naive.gemms, 4);
  EXPECT_DOUBLE_EQ(naive.flops_vs_forward, 2.0);
  const std::string text = backward_flops_text(model);
  EXPECT_TRUE(contains(text, "runs 5 matrix products per score")) << text;
  EXPECT_TRUE(contains(text, "against the forward's 2")) << text;
  EXPECT_TRUE(contains(text, format_ratio(varlen.flops_vs_forward) + " the forward's FLOPs")) << text;
  EXPECT_TRUE(contains(text, format_count(double(varlen.scores_recomputed)) + " scores recomputed")) << text;
  EXPECT_TRUE(contains(text, "4 products, " + format_ratio(naive.flops_vs_forward) + " its forward")) << text;
}

ResultRow with_pass(ResultRow r, Pass pass) {
  r.pass = pass;
  return r;
}

const PassPair* pair_of(const std::vector<PassPair>& pairs, const char* source, const char* implementation) {
  for (const PassPair& p : pairs)
    if (p.source == source && p.implementation == implementation) return &p;
  return nullptr;
}

TEST(PassPairs, TheSumIsTheTwoMediansOfOneFileAndAMissingPassIsMissing) {
  const auto folder = unique_temp_path("pass-pairs");
  std::filesystem::remove_all(folder);
  ResultRow d64 = with_pass(our_row("varlen", 900), Pass::bwd);
  d64.head_dim = 64;
  // The bench file sorts first: its forward rows are the primary ones.
  write_results_csv(folder / "attnlab-bench.csv",
                    {our_row("naive", 1749), our_row("packed", 2234), our_row("varlen", 376)});
  write_results_csv(folder / "attnlab-run.csv", {our_row("varlen", 380), with_pass(our_row("varlen", 2009), Pass::bwd),
                                                 with_pass(our_row("packed", 5000), Pass::bwd),
                                                 with_pass(our_row("padded", 1900), Pass::bwd), d64});
  LoadedResults results;
  load_results_folder(results, folder);
  const std::vector<PassPair> pairs =
      pass_pairs(results, own_configuration(load_scenario("uniform-64x512"), Pass::bwd));
  ASSERT_EQ(pairs.size(), 4u);
  // varlen: both passes in attnlab-run.csv: summed from that file, not from the primary forward (376).
  const PassPair* varlen = pair_of(pairs, "attnlab", "varlen");
  ASSERT_TRUE(varlen && varlen->one_build);
  EXPECT_EQ(file_name(*varlen->fwd), "attnlab-run.csv");
  EXPECT_EQ(file_name(*varlen->bwd), "attnlab-run.csv");
  EXPECT_EQ(*varlen->fwd->row->median_us, 380);
  EXPECT_EQ(*varlen->bwd->row->median_us, 2009);
  EXPECT_EQ(varlen->sum_us(), 380.0 + 2009.0);
  // packed: forward in one file, backward in another: both shown, no sum.
  const PassPair* packed = pair_of(pairs, "attnlab", "packed");
  ASSERT_TRUE(packed && packed->fwd && packed->bwd);
  EXPECT_EQ(file_name(*packed->fwd), "attnlab-bench.csv");
  EXPECT_EQ(file_name(*packed->bwd), "attnlab-run.csv");
  EXPECT_FALSE(packed->sum_us());
  // naive: no backward; padded: no forward. Missing, not zero.
  const PassPair* naive = pair_of(pairs, "attnlab", "naive");
  ASSERT_TRUE(naive && naive->fwd);
  EXPECT_FALSE(naive->bwd);
  EXPECT_FALSE(naive->sum_us());
  const PassPair* padded = pair_of(pairs, "attnlab", "padded");
  ASSERT_TRUE(padded && padded->bwd);
  EXPECT_FALSE(padded->fwd);
  EXPECT_FALSE(padded->sum_us());
  std::filesystem::remove_all(folder);
}

// The bench writes the forward and the backward to two files: of one commit on one machine
// they are one build and summed; of two commits they are not.
TEST(PassPairs, TwoFilesOfOneBuildAreSummed) {
  const auto folder = unique_temp_path("pass-pairs-build");
  std::filesystem::remove_all(folder);
  const auto built = [](ResultRow r, const char* commit) {
    r.commit = commit;
    r.driver = "580.159.04";
    r.cuda_version = "13.0";
    return r;
  };
  write_results_csv(folder / "attnlab-bench.csv",
                    {built(our_row("varlen", 376), "abc123"), built(our_row("packed", 2234), "abc123")});
  write_results_csv(folder / "attnlab-bench-bwd.csv", {built(with_pass(our_row("varlen", 2009), Pass::bwd), "abc123"),
                                                       built(with_pass(our_row("packed", 5000), Pass::bwd), "def456")});
  LoadedResults results;
  load_results_folder(results, folder);
  const std::vector<PassPair> pairs =
      pass_pairs(results, own_configuration(load_scenario("uniform-64x512"), Pass::bwd));
  const PassPair* varlen = pair_of(pairs, "attnlab", "varlen");
  ASSERT_TRUE(varlen && varlen->one_build);
  EXPECT_EQ(varlen->sum_us(), 376.0 + 2009.0);
  EXPECT_NE(varlen->fwd->file, varlen->bwd->file);
  const PassPair* packed = pair_of(pairs, "attnlab", "packed");
  ASSERT_TRUE(packed && packed->fwd && packed->bwd);
  EXPECT_FALSE(packed->sum_us());
  std::filesystem::remove_all(folder);
}

// One results file holding both passes of each kernel of ours, as `attnlab-bench --pass=both`
// writes them (the rows the shipped results need for item 7 of issue 35): each kernel's forward
// is summed with the same kernel's backward of the same commit, never across kernels; a file
// that gathered another commit's backward holds two builds, not summed.
TEST(PassPairs, OneFileOfBothPassesSumsEachKernelsOwn) {
  const auto folder = unique_temp_path("pass-pairs-both");
  std::filesystem::remove_all(folder);
  const auto row = [](const char* impl, double us, const char* kernel, Pass pass, const char* commit) {
    ResultRow r = with_pass(our_row(impl, us, kernel), pass);
    r.commit = commit;
    return r;
  };
  write_results_csv(
      folder / "attnlab-bench-both.csv",
      {row("varlen", 211, "wgmma-sm90", Pass::fwd, "abc123"), row("varlen", 1220, "wgmma-sm90", Pass::bwd, "abc123"),
       row("varlen", 386, "mma-sm80", Pass::fwd, "abc123"), row("varlen", 2009, "mma-sm80", Pass::bwd, "abc123"),
       row("packed", 912, "wgmma-sm90", Pass::fwd, "abc123"), row("packed", 5000, "wgmma-sm90", Pass::bwd, "def456")});
  LoadedResults results;
  load_results_folder(results, folder);
  const std::vector<PassPair> pairs =
      pass_pairs(results, own_configuration(load_scenario("uniform-64x512"), Pass::bwd));
  const auto pair_of_kernel = [&](const char* impl, const char* kernel) -> const PassPair* {
    for (const PassPair& p : pairs)
      if (p.implementation == impl && p.kernel == kernel) return &p;
    return nullptr;
  };
  const PassPair* hopper = pair_of_kernel("varlen", "wgmma-sm90");
  const PassPair* teaching = pair_of_kernel("varlen", "mma-sm80");
  ASSERT_TRUE(hopper && teaching);
  EXPECT_EQ(hopper->sum_us(), 211.0 + 1220.0);
  EXPECT_EQ(teaching->sum_us(), 386.0 + 2009.0);
  const PassPair* packed = pair_of_kernel("packed", "wgmma-sm90");
  ASSERT_TRUE(packed && packed->fwd && packed->bwd);
  EXPECT_FALSE(packed->one_build);  // one file, two commits: two builds
  EXPECT_FALSE(packed->sum_us());
  std::filesystem::remove_all(folder);
}

// The median of the pair's row of `pass` in `shape`, read straight from `file`.
std::optional<double> median_in(const std::filesystem::path& file, const PassPair& p, const Configuration& shape,
                                Pass pass) {
  for (const ResultRow& r : read_results_csv(file))
    if (r.source == p.source && r.kernel == p.kernel && r.implementation == p.implementation && r.pass == pass &&
        r.dtype == shape.dtype && r.heads == shape.heads && r.head_dim == shape.head_dim && r.causal == shape.causal &&
        r.scenario == shape.scenario && r.median_us)
      return r.median_us;
  return std::nullopt;
}

// On the shipped H100 results: every sum is the forward and backward medians of the
// rows it names, read here straight from their files, of one file or of one build;
// where there is no sum, no two rows are. FlashAttention-2's backward file holds both passes.
TEST(PassPairs, ShippedSumsAreTheirFilesTwoRows) {
  const LoadedResults results = shipped_results();
  const Configuration shape = own_configuration(load_scenario("uniform-64x512"), Pass::bwd);
  const std::vector<PassPair> pairs = pass_pairs(results, shape);
  int summed = 0;
  for (const PassPair& p : pairs) {
    SCOPED_TRACE(p.source + " " + p.kernel + " " + p.implementation);
    if (p.one_build) {
      const auto fwd = median_in(*p.fwd->file, p, shape, Pass::fwd), bwd = median_in(*p.bwd->file, p, shape, Pass::bwd);
      ASSERT_TRUE(fwd && bwd);
      EXPECT_DOUBLE_EQ(*p.sum_us(), *fwd + *bwd);
      EXPECT_TRUE(p.fwd->file == p.bwd->file || same_build(*p.fwd->row, *p.bwd->row));
      ++summed;
    } else {
      EXPECT_FALSE(p.sum_us());
      for (const ResultsFile& f : results.files)
        EXPECT_FALSE(median_in(f.path, p, shape, Pass::fwd) && median_in(f.path, p, shape, Pass::bwd)) << f.path;
    }
  }
  const PassPair* fa2 = pair_of(pairs, "torch-varlen_attn", "varlen");
  ASSERT_TRUE(fa2 && fa2->one_build);
  EXPECT_GE(summed, 1);
  // Ours come first.
  ASSERT_FALSE(pairs.empty());
  EXPECT_EQ(pairs.front().source, "attnlab");
}

// The shipped one-build files (attnlab-bench-one-build-<kernel>.csv: both passes of one of our
// kernels, one commit, one file) give each of our kernels a forward + backward sum in every shape
// they hold, as FA2's backward file gives FA2 one: each sum the two medians of one build, read here
// from the files the pair names (every one of ours read "two builds" before these files shipped).
TEST(PassPairs, ShippedOneBuildFilesSumOurKernelsInEveryShape) {
  const LoadedResults results = shipped_results();
  std::set<std::string> kernels;
  int summed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shipped_results_folder)) {
    if (!entry.path().filename().string().starts_with("attnlab-bench-one-build-")) continue;
    for (const ResultRow& r : read_results_csv(entry.path())) {
      if (r.source != "attnlab" || r.pass != Pass::bwd || r.kernel.empty()) continue;
      SCOPED_TRACE(r.scenario + " " + r.kernel + " " + r.implementation);
      const Configuration shape = own_configuration(load_scenario(r.scenario), Pass::bwd);
      ASSERT_EQ(shape.heads, r.heads);
      ASSERT_EQ(shape.head_dim, r.head_dim);
      const std::vector<PassPair> pairs = pass_pairs(results, shape);
      const auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const PassPair& p) {
        return p.source == r.source && p.kernel == r.kernel && p.implementation == r.implementation;
      });
      ASSERT_NE(pair, pairs.end());
      ASSERT_TRUE(pair->one_build && pair->sum_us());
      const auto fwd = median_in(*pair->fwd->file, *pair, shape, Pass::fwd),
                 bwd = median_in(*pair->bwd->file, *pair, shape, Pass::bwd);
      ASSERT_TRUE(fwd && bwd);
      EXPECT_DOUBLE_EQ(*pair->sum_us(), *fwd + *bwd);
      EXPECT_TRUE(pair->fwd->file == pair->bwd->file || same_build(*pair->fwd->row, *pair->bwd->row));
      kernels.insert(r.kernel);
      ++summed;
    }
  }
  EXPECT_EQ(kernels, (std::set<std::string>{"mma-sm80", "wgmma-sm90"}));
  EXPECT_GE(summed, 2 * 3);  // each kernel's padded, packed and varlen at least
}

}  // namespace
}  // namespace attnlab::gui
