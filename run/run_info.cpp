#include "run/run_info.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <unistd.h>

#include "core/cost/backward_cost.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/input_error.hpp"
#include "core/layout/tile_name.hpp"

namespace attnlab {

namespace {

std::string source_tree_commit() {
  if (const char* env = std::getenv("ATTNLAB_COMMIT"); env && *env) return env;
  FILE* git = popen("git -C '" ATTNLAB_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null", "r");
  if (!git) return "";
  std::array<char, 64> line{};
  std::string commit = std::fgets(line.data(), line.size(), git) ? line.data() : "";
  pclose(git);
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
  return commit;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

// FLOPs per second of a pass of `us` microseconds, in TFLOP/s.
double tflops(std::int64_t flops, double us) { return double(flops) / (us * 1e6); }

}  // namespace

RunInfo describe_run(const GpuInfo& gpu) {
  return {gpu.name, gpu.driver, cuda_version_string(gpu.runtime_version), source_tree_commit(), utc_now_iso8601()};
}

void check_results_path(const std::filesystem::path& path, const std::string& flag) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(flag + ": " + path.string() + " is a folder, expected a file");
  try {
    check_replaceable_file(path, "results file");  // a symlink or device would be replaced by the rename
  } catch (const InputError& e) {
    throw InputError(flag + ": " + e.what());
  }
  std::filesystem::path folder = std::filesystem::absolute(path, ec).parent_path();
  while (!folder.empty() && !std::filesystem::exists(folder, ec) && folder != folder.parent_path())
    folder = folder.parent_path();
  if (!std::filesystem::is_directory(folder, ec) || ::access(folder.c_str(), W_OK | X_OK) != 0)
    throw InputError(flag + ": cannot write " + path.string() + " (" + folder.string() + " is not a writable folder)");
}

ResultRow measured_result_row(const Scenario& s, Implementation implementation, FlashKernel kernel,
                              const GpuTiming& timing, const RunInfo& run) {
  ResultRow row;
  row.scenario = s.name;
  row.implementation = implementation_name(implementation);
  row.source = "attnlab";
  row.gpu = run.gpu;
  row.dtype = s.dtype;
  row.heads = s.heads;
  row.head_dim = s.head_dim;
  row.causal = s.causal;
  row.window_left = s.window.left;
  row.window_right = s.window.right;
  row.pass = Pass::fwd;
  row.median_us = timing.median_us;
  row.min_us = timing.min_us;
  row.max_us = timing.max_us;
  row.kv_heads = s.kv_heads;
  row.tokens = s.total_tokens();
  row.kernel = kernel_name(implementation, kernel);
  row.reps = timing.reps;
  row.driver = run.driver;
  row.cuda_version = run.cuda_version;
  row.commit = run.commit;
  row.date = run.date;
  return row;
}

ResultRow timed_result_row(const Scenario& s, Implementation implementation, FlashKernel kernel,
                           const ImplementationCost& cost, const GpuTiming& timing, const RunInfo& run) {
  ResultRow row = measured_result_row(s, implementation, kernel, timing, run);
  row.useful_tflops = tflops(cost.flops_useful_fwd, timing.median_us);
  row.computed_tflops = tflops(cost.flops_fwd, timing.median_us);
  row.scores_computed = cost.scores_computed();
  row.scores_useful = cost.scores_useful();
  // results/README.md: the flash tile; naive's "tile" is the whole padded row, no tile at all.
  if (!materializes_scores(implementation)) row.tile = tile_name(cost.tile);
  row.hbm_bytes_model = cost.hbm.total();
  row.extra_memory_bytes = cost.extra_memory_bytes;
  return row;
}

ResultRow timed_result_row(const ScenarioPlan& plan, Implementation implementation, Pass pass, const GpuTiming& timing,
                           const RunInfo& run) {
  const ImplementationCost& forward = plan.model[implementation];
  ResultRow row = timed_result_row(plan.scenario, implementation, plan.kernel, forward, timing, run);
  if (pass == Pass::bwd) {
    const BackwardCost cost = backward_cost(plan.scenario, forward, plan.layouts->of(implementation));
    row.pass = Pass::bwd;
    row.useful_tflops = tflops(cost.flops_useful, timing.median_us);
    row.computed_tflops = tflops(cost.flops, timing.median_us);
    row.hbm_bytes_model = cost.hbm.total();
    row.extra_memory_bytes = cost.extra_memory_bytes;
  }
  return row;
}

}  // namespace attnlab
