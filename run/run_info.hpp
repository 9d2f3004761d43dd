#pragma once
// What every attnlab results row says about the run itself (the GPU, the driver,
// the CUDA version, the commit and the date, so a number can be traced to the code and
// machine that made it), and the columns that
// `attnlab run` and attnlab-bench fill alike, so the two write the same row.
#include <filesystem>
#include <string>

#include "core/cost/cost_model.hpp"
#include "core/layout/implementation.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario.hpp"
#include "kernels/attention.hpp"
#include "run/scenario_plan.hpp"
#include "run/timing.hpp"

namespace attnlab {

struct RunInfo {
  std::string gpu, driver, cuda_version, commit, date;
};

// The commit is $ATTNLAB_COMMIT when set (a copy of the tree without .git, as on the
// device machine, passes it in), else `git rev-parse` of the source tree, else empty.
RunInfo describe_run(const GpuInfo& gpu);

// The columns every attnlab row of a timed forward fills alike: the scenario's shape, the code that
// ran, the timing and the run. The model's columns are the caller's.
ResultRow measured_result_row(const Scenario& s, Implementation implementation, FlashKernel kernel,
                              const GpuTiming& timing, const RunInfo& run);
// One attnlab row of a timed (scenario, implementation): the scenario's shape, the
// kernel that ran (naive's cuBLAS or the flash kernel), the model's scores and bytes
// at that kernel's tile, the timing and the run. The caller adds what only it
// measured (errors, bleed).
ResultRow timed_result_row(const Scenario& s, Implementation implementation, FlashKernel kernel,
                           const ImplementationCost& cost, const GpuTiming& timing, const RunInfo& run);
// The same for either pass of a planned scenario: with bwd, pass = bwd and the
// backward's model (core/cost/backward_cost.hpp) gives the FLOPs, HBM bytes and memory.
ResultRow timed_result_row(const ScenarioPlan& plan, Implementation implementation, Pass pass, const GpuTiming& timing,
                           const RunInfo& run);

// Checked before a run, so a results file that cannot be written fails in a second,
// not after minutes on the GPU: throws InputError naming `flag` and the path when the
// path is a folder or its nearest existing folder is not writable.
void check_results_path(const std::filesystem::path& path, const std::string& flag);

}  // namespace attnlab
