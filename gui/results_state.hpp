#pragma once
// The results files the Timings view shows: the shipped folder plus any the user
// loads. A file that cannot be read is reported (one line naming it) and skipped.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "core/results_csv.hpp"

namespace attnlab::gui {

struct ResultsFile {
  std::filesystem::path path;
  std::vector<ResultRow> rows;
};

struct ResultsState {
  std::vector<ResultsFile> files;
  std::vector<std::string> problems;  // files skipped, and why
  std::string load_path;              // the Timings view's "load a file or folder" field
  int pass_filter = 0;                // 0 = fwd, 1 = bwd
  bool all_scenarios = false;         // else only the rows of the current scenario (all when it has none)
};

// Reads every *.csv in `folder` (sorted by name). A missing folder adds nothing.
void load_results_folder(ResultsState& results, const std::filesystem::path& folder);
// Reads one file, or every *.csv when `path` is a folder; replaces a file read before from the same path.
void load_results(ResultsState& results, const std::filesystem::path& path);

std::size_t total_rows(const ResultsState& results);

// What our results hold for one implementation run on the scenario's shape (name,
// dtype, causal, heads, head dim), forward pass. Rows of one shape sit in several
// files (a bench run with ncu bytes, a variants run without): each value comes from
// the first row, in file order, that measured it.
struct MeasuredForward {
  const ResultRow* timed = nullptr;  // the first row with a median time
  std::optional<std::int64_t> hbm_bytes;
};
MeasuredForward our_measured_forward(const ResultsState& results, const Scenario& scenario, Implementation implementation);

}  // namespace attnlab::gui
