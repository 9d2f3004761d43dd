#pragma once
// The command-line vocabulary `attnlab run` and attnlab-bench share: one flag for
// one thing in both, each older spelling kept as a hidden alias for the scripts
// that use it. CLI11 takes `--flag value` and `--flag=value` alike (the second is
// Google Benchmark's style), lists as `a,b` or as repeated flags.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/results/results_csv.hpp"
#include "run/scenario_plan.hpp"

namespace attnlab::cli {

struct RunFlags {
  std::vector<std::string> scenarios;  // names or .toml paths
  std::vector<std::string> implementations{"naive", "padded", "packed", "varlen"};
  std::vector<std::string> dtypes;  // empty: each scenario's own
  std::vector<int> head_dims;       // empty: each scenario's own
  std::string kernel;               // empty: the fastest flash kernel the GPU runs
  std::string pass = "fwd";         // fwd, bwd or both
  int reps = 0;
  int warmup = 0;
  std::string out;  // results CSV
  std::uint64_t seed = 1;
};

// Registers the shared flags on `app`, with the defaults already in `flags`;
// `reps_help` says what a rep is to this program.
void add_run_flags(CLI::App& app, RunFlags& flags, const std::string& reps_help);

// The flags checked, before any GPU work: InputError naming the flag otherwise.
// `min_reps` is 1 where --reps must be given a positive count, 0 where 0 means unset.
std::vector<Implementation> chosen_implementations(const RunFlags& flags);
std::vector<Pass> chosen_passes(const RunFlags& flags);  // both: fwd then bwd
void check_run_flags(const RunFlags& flags, int min_reps);

// --kernel on a GPU of `compute_capability` (choose_flash_kernel): with a backward among
// the passes, a kernel that has one.
FlashKernel chosen_kernel(const RunFlags& flags, int compute_capability);

// Every scenario named (all shipped ones when none is) at each dtype and head dim,
// planned with `kernel`; the variants of one scenario share its layouts. Throws
// InputError for a bad scenario or a shape the kernels lack, before any runs.
std::vector<std::shared_ptr<const ScenarioPlan>> plan_scenarios(const RunFlags& flags, FlashKernel kernel);

}  // namespace attnlab::cli
