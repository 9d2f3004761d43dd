// Host-only checks of the row `attnlab run` and attnlab-bench both write
// (run/run_info.hpp), of the timing summary both use, and of the check of
// their results path. They need no GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario_file.hpp"
#include "kernels/common/launch_config.hpp"
#include "run/run_info.hpp"
#include "run/scenario_plan.hpp"

namespace attnlab {
namespace {

TEST(TimingOf, MedianMinMaxOfOddAndEvenCounts) {
  const GpuTiming odd = timing_of({5, 1, 3});
  EXPECT_EQ(odd.median_us, 3);
  EXPECT_EQ(odd.min_us, 1);
  EXPECT_EQ(odd.max_us, 5);
  EXPECT_EQ(odd.reps, 3);
  EXPECT_EQ(timing_of({4, 1, 2, 10}).median_us, 3);
  EXPECT_THROW(timing_of({}), std::invalid_argument);
}

TEST(TimedResultRow, FillsTheSharedColumnsFromTheModelAndTheTiming) {
  const Scenario s = load_scenario("uniform-64x512");
  const CostModel model = model_costs(s, kernel_tile(FlashKernel::mma_sm80));
  const RunInfo run{"Some GPU", "580.1", "13.0", "abc123", "2026-01-01T00:00:00Z"};
  const GpuTiming timing = timing_of({100, 200, 300});

  const ResultRow varlen =
      timed_result_row(s, Implementation::varlen, FlashKernel::mma_sm80, model[Implementation::varlen], timing, run);
  EXPECT_EQ(varlen.scenario, "uniform-64x512");
  EXPECT_EQ(varlen.implementation, "varlen");
  EXPECT_EQ(varlen.source, "attnlab");
  EXPECT_EQ(varlen.gpu, "Some GPU");
  EXPECT_EQ(varlen.heads, s.heads);
  EXPECT_EQ(varlen.kv_heads, s.kv_heads);
  EXPECT_EQ(varlen.window_left, s.window.left);  // every row says the window it computed
  EXPECT_EQ(varlen.window_right, s.window.right);
  EXPECT_EQ(varlen.median_us, 200);
  EXPECT_EQ(varlen.reps, 3);
  EXPECT_EQ(varlen.scores_computed, model[Implementation::varlen].scores_computed());
  EXPECT_EQ(varlen.tile, "64x64");
  EXPECT_EQ(varlen.kernel, "mma-sm80");
  // useful TFLOP/s = useful FLOPs / median time
  EXPECT_DOUBLE_EQ(*varlen.useful_tflops, double(model[Implementation::varlen].flops_useful_fwd) / 200e6);
  EXPECT_EQ(varlen.commit, "abc123");
  EXPECT_FALSE(varlen.rel_l2_error.has_value());  // measured by `attnlab run` alone, never made up here

  // results/README.md: the tile column is empty where no flash tile applies.
  const ResultRow naive =
      timed_result_row(s, Implementation::naive, FlashKernel::mma_sm80, model[Implementation::naive], timing, run);
  EXPECT_EQ(naive.tile, "");
  EXPECT_EQ(naive.kernel, "cublas");
}

TEST(ScenarioPlan, NaiveRunsOverThePaddedBatchAndVariantsShareTheLayouts) {
  const Scenario s = load_scenario("uniform-64x512");
  const ScenarioPlan plan(s, FlashKernel::mma_sm80);
  EXPECT_EQ(&plan.layouts->of(Implementation::naive), &plan.layouts->padded);
  EXPECT_EQ(plan.layouts->of(Implementation::packed).kind, LayoutKind::packed);
  EXPECT_EQ(plan.layouts->of(Implementation::varlen).token_doc.size(), std::size_t(s.total_tokens()));
  EXPECT_EQ(plan.model.tile, kernel_tile(FlashKernel::mma_sm80));
  Scenario d64 = s;
  d64.head_dim = 64;
  const ScenarioPlan variant(d64, FlashKernel::mma_sm80, plan.layouts);
  EXPECT_EQ(variant.layouts, plan.layouts);  // built once
  EXPECT_EQ(variant.model[Implementation::varlen].flops_fwd * 2, plan.model[Implementation::varlen].flops_fwd);
  Scenario d96 = s;
  d96.head_dim = 96;
  EXPECT_THROW(ScenarioPlan(d96, FlashKernel::mma_sm80), InputError);
}

TEST(FlashKernels, EachNamesItsTileAndTheFastestSupportedIsTheDefault) {
  EXPECT_EQ(kernel_tile(FlashKernel::mma_sm80), (TileShape{64, 64}));
  EXPECT_STREQ(kernel_name(Implementation::naive, FlashKernel::mma_sm80), "cublas");
  EXPECT_STREQ(kernel_name(Implementation::packed, FlashKernel::mma_sm80), "mma-sm80");
  EXPECT_EQ(kernel_tile(FlashKernel::wgmma_sm90), (TileShape{128, 128}));
  EXPECT_STREQ(kernel_name(Implementation::varlen, FlashKernel::wgmma_sm90), "wgmma-sm90");
  // The Hopper kernel where the build holds it, on compute capability 9.0 only; the teaching kernel elsewhere.
  EXPECT_EQ(choose_flash_kernel("", 90),
            flash_kernel_built(FlashKernel::wgmma_sm90) ? FlashKernel::wgmma_sm90 : FlashKernel::mma_sm80);
  EXPECT_EQ(choose_flash_kernel("", 89), FlashKernel::mma_sm80);
  // Each has a backward; with no --kernel only one whose backward is the default is taken.
  EXPECT_EQ(choose_flash_kernel("", 90, "--kernel", true),
            flash_kernel_built(FlashKernel::wgmma_sm90) && flash_kernel_info(FlashKernel::wgmma_sm90).default_backward
                ? FlashKernel::wgmma_sm90
                : FlashKernel::mma_sm80);
  EXPECT_EQ(choose_flash_kernel("mma-sm80", 80), FlashKernel::mma_sm80);
  EXPECT_THROW(choose_flash_kernel("wgmma-sm90", 86), InputError);
  if (flash_kernel_built(FlashKernel::wgmma_sm90))
    EXPECT_EQ(choose_flash_kernel("wgmma-sm90", 90, "--kernel", true), FlashKernel::wgmma_sm90);
  else
    EXPECT_THROW(choose_flash_kernel("wgmma-sm90", 90, "--kernel", true), InputError);
  // A GPU launching as an sm_86 (ATTNLAB_LAUNCH_AS) runs what an sm_86 runs.
  ::setenv(launch_as_variable, "sm_86", 1);
  EXPECT_EQ(choose_flash_kernel("", 90), FlashKernel::mma_sm80);
  EXPECT_THROW(choose_flash_kernel("wgmma-sm90", 90), InputError);
  ::unsetenv(launch_as_variable);
  EXPECT_THROW(choose_flash_kernel("", 75), NoGpuError);
  try {
    choose_flash_kernel("wgmma", 90);
    ADD_FAILURE() << "an unknown kernel was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--kernel: expected one of " + flash_kernel_names() + ", got \"wgmma\"");
    EXPECT_EQ(flash_kernel_names().rfind("wgmma-sm90, mma-sm80, wgmma-sm90/rung1, ", 0), 0u) << flash_kernel_names();
  }
  EXPECT_THROW(choose_flash_kernel("mma-sm80", 75), InputError);
}

TEST(CheckResultsPath, RefusesFoldersAndPathsUnderAFileBeforeARun) {
  const auto tmp = std::filesystem::temp_directory_path();
  EXPECT_NO_THROW(check_results_path(tmp / "attnlab-no-such-folder" / "deeper" / "out.csv", "--out"));
  EXPECT_THROW(check_results_path(tmp, "--out"), InputError);
  const auto file = tmp / ("attnlab-check-results-path-" + std::to_string(::getpid()));
  std::ofstream(file) << "x";
  try {
    check_results_path(file / "out.csv", "--results_csv");
    ADD_FAILURE() << "a path under a file was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--results_csv"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace attnlab
