#pragma once
// Which run of a configuration the views show. Several results files may hold the
// same configuration (results/h100 holds our packed run of uniform-64x512 three
// times: the bench run, the variants run and `attnlab run`). The primary run is the
// row of the first file in results_file_order, the rule attnlab/tables.py
// follows for the README's and TABLE.md's tables; the other runs stay beside it, so
// a view can name the file a number comes from and show the spread.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/results_files.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

inline constexpr std::string_view our_source = "attnlab";  // the `source` of our rows

// What makes two rows measurements of the same thing.
struct Configuration {
  std::string scenario;
  DType dtype = DType::bf16;
  int heads = 0, head_dim = 0;
  bool causal = true;
  Pass pass = Pass::fwd;

  bool holds(const ResultRow& r) const {
    return r.scenario == scenario && r.dtype == dtype && r.heads == heads && r.head_dim == head_dim &&
           r.causal == causal && r.pass == pass;
  }
  bool operator==(const Configuration&) const = default;
};
Configuration configuration_of(const ResultRow& r);
Configuration own_configuration(const Scenario& s, Pass pass = Pass::fwd);  // the scenario's dtype and head dim

struct Run {
  const ResultRow* row = nullptr;
  const std::filesystem::path* file = nullptr;
};

struct MeasuredRun {
  Run primary;
  std::vector<Run> others;  // the same configuration, source, kernel and implementation in later files, in file order

  std::size_t runs() const { return 1 + others.size(); }
  double fastest_us() const;  // lowest and highest median over every run
  double slowest_us() const;
  // The first run, primary first, whose row holds ncu's bytes; null where none does.
  const Run* with_measured_bytes() const;
};

// The primary run of every (configuration, source, kernel, implementation) whose rows
// pass `keep` and hold a median time, in the order the primary rows come in the files.
// Two kernels of ours (mma-sm80, wgmma-sm90) are two runs, never one.
std::vector<MeasuredRun> primary_runs(const LoadedResults& results, const std::function<bool(const ResultRow&)>& keep);

// The run of one source and implementation in one configuration, if any file holds
// it: of `kernel`, or, without one, of the kernel whose row comes first in the files.
std::optional<MeasuredRun> find_run(const LoadedResults& results, const Configuration& c, std::string_view source,
                                    std::string_view implementation,
                                    std::optional<std::string_view> kernel = std::nullopt);

// The configurations `runs` were measured in, `own` first where it is among them (the
// scenario's own dtype and head dim: bf16, head dim 128 for uniform-64x512), then in file order.
std::vector<Configuration> measured_configurations(const std::vector<MeasuredRun>& runs, const Configuration& own);

// "attnlab-bench.csv"; and for several runs, "3 runs: 2,089 µs to 2,234 µs" (empty for one).
std::string file_name(const Run& run);
std::string spread_text(const MeasuredRun& run);

}  // namespace attnlab
