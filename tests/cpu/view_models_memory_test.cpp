// The memory of the core and analysis calls behind two GUI views, measured here without a
// window: the Training step view's (gui/views/step_figures.cpp: the GEMMs, the prediction from
// time and the measured steps, each scenario a results row names looked up through the default
// lookup of $ATTNLAB_SCENARIOS, and the Story's measured_as) and the Context parallel view's
// (gui/views/cp_view.cpp: model_context_parallel of the scenario). Each runs in a child process
// whose peak resident memory is reset before the calls, so only what they hold is counted.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/measured_step.hpp"
#include "analysis/same_cells.hpp"
#include "analysis/step_times.hpp"
#include "core/cost/context_parallel.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/huge_scenarios.hpp"
#include "tests/cpu/test_folder.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
long status_kib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  return -1;
}

// In a child process: `setup`, then the heap's free pages given back (the child inherits what
// earlier tests freed, which the calls would reuse without raising the peak) and the peak
// resident memory set back to what is resident (/proc/self/clear_refs), then `calls`. Returns
// the KiB the calls' peak rose above it; -1 where the child could not say or a call threw.
long peak_kib_of(const std::function<void()>& setup, const std::function<void()>& calls) {
  int ends[2];
  if (::pipe(ends) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ends[0]);
    long grown = -1;
    try {
      setup();
      ::malloc_trim(0);
      std::ofstream("/proc/self/clear_refs") << "5" << std::flush;
      const long resident = status_kib("VmRSS");
      calls();
      grown = status_kib("VmHWM") - resident;
    } catch (...) {}
    [[maybe_unused]] const ssize_t n = ::write(ends[1], &grown, sizeof grown);
    ::_exit(0);
  }
  ::close(ends[1]);
  long grown = -1;
  if (::read(ends[0], &grown, sizeof grown) != ssize_t(sizeof grown)) grown = -1;
  ::close(ends[0]);
  ::waitpid(child, nullptr, 0);
  return grown;
}

class ViewModelsMemory : public TestFolder {
 protected:
  ViewModelsMemory() : TestFolder("attnlab_view_models_memory_") {}
};

// The step view's figures with six valid scenarios of 2^24 one-token documents beside
// nanochat-d24 (resolving each holds 64 MiB of lengths alone, and its layouts): only the
// scenarios the shipped rows name are looked up, so the six add nothing to the peak.
TEST_F(ViewModelsMemory, TheStepViewLooksUpOnlyTheScenariosRowsName) {
  const auto step_view_kib = [&](int huge) {
    const fs::path folder = dir_ / ("scenarios-" + std::to_string(huge));
    write_step_scenarios(folder, huge);
    Scenario s;
    TrainingStep step;
    LoadedResults results;
    return peak_kib_of(
        [&] {
          ::setenv("ATTNLAB_SCENARIOS", folder.c_str(), 1);
          s = load_scenario("nanochat-d24");
          step = model_training_step(s, *s.model);
          load_results_folder(results, fs::path(ATTNLAB_SOURCE_DIR) / "results" / "h100");
        },
        [&] {
          MeasuredRuns runs;
          for (const ResultsFile& f : results.files) runs.rows.insert(runs.rows.end(), f.rows.begin(), f.rows.end());
          const std::optional<MeasuredGemms> gemms = gemms_for_step(s, step, results.gemms);
          for (KernelFamily family : all_kernel_families)
            predict_step_time(s, step, family, results.ceilings->tflops, gemms, runs, {}, results.ceilings->tbps);
          if (measured_step_pairs(s, step, results).empty()) throw std::runtime_error("no measured step");
          measured_as(s, results, RunCells());
        });
  };
  const long none = step_view_kib(0), six = step_view_kib(6);
  ASSERT_GE(none, 0);
  ASSERT_GE(six, 0);
  EXPECT_LT(six, none + 32 * 1024) << "KiB the step view's calls held with six huge scenarios in the folder, against "
                                   << none << " without";
}

// The CP view's model of 2^20 one-token documents (each a piece of its own), against the varlen
// layout of the same scenario (what the view lays out anyway): the model holds a varlen layout of
// its own and less again (the pieces, 12 bytes each and up to twice that in a growing vector; the
// documents strategy's order and work, 12 bytes a document), under 2.5 layouts whatever the
// strategy or the ranks. Measured against the layout, a sanitizer's own memory cancels out.
TEST_F(ViewModelsMemory, TheCpModelHoldsAboutAVarlenLayoutWhateverTheRanks) {
  constexpr int documents = 1 << 20;
  Scenario s;
  const auto one_token_documents = [&] {
    s.name = "one-token-documents";
    s.heads = s.kv_heads = 1;
    s.head_dim = 8;
    s.row_len = 256;
    s.length_source = UniformLengths{documents, 1};
    s.resolve();
  };
  const long layout = peak_kib_of(one_token_documents, [&] { s.varlen_layout(); });
  ASSERT_GT(layout, 0);
  for (CpStrategy strategy : all_cp_strategies)
    for (int ranks : {1, max_cp_ranks}) {
      const long model = peak_kib_of(one_token_documents, [&] {
        const CpCost cost = model_context_parallel(s, ranks, strategy);
        std::size_t pieces = 0;
        for (const std::vector<CpPiece>& held : cost.plan.pieces) pieces += held.size();
        if (pieces != std::size_t{documents}) throw std::runtime_error("not a piece per document");
      });
      ASSERT_GE(model, 0) << cp_strategy_name(strategy) << " over " << ranks;
      EXPECT_LT(double(model) / double(layout), 2.5)
          << cp_strategy_name(strategy) << " over " << ranks << " ranks: " << model << " KiB, the layout " << layout;
    }
}

}  // namespace
}  // namespace attnlab
