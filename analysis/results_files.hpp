#pragma once
// The results files one reader sees: every *.csv of a folder (and its gemms/*.csv), plus any file or folder
// loaded later, kept in the order that decides which run of a configuration is the
// primary one (results_order.hpp, primary_runs.hpp). A file that cannot be read is
// reported (one line naming it) and skipped. The CLI and the GUI load through here.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ceilings.hpp"
#include "analysis/measured_gemms.hpp"
#include "core/io/input_limits.hpp"
#include "core/results/results_csv.hpp"

namespace attnlab {

struct ResultsFile {
  std::filesystem::path path;
  std::vector<ResultRow> rows;  // attention runs (pass fwd or bwd)
  std::vector<StepRow> steps;   // measured training steps (pass step), apart from every attention table
  std::vector<ResultRow> cp;    // context-parallel ranks, apart from every attention table too
};

struct LoadedResults {
  std::vector<ResultsFile> files;     // in results_file_order: the primary run's file first
  std::vector<std::string> problems;  // files skipped, and why
  // The ceilings.toml of the first loaded folder that has one; empty where none does.
  std::optional<Ceilings> ceilings;
  std::filesystem::path ceilings_file;
  // The GEMMs at a model's shapes, from each loaded folder's gemms/*.csv.
  std::vector<GemmsFile> gemms;
  // Rows all loaded files (results CSVs and GEMM files) may hold together; a file that would pass
  // it is skipped as a problem, so memory stays bounded however many files a folder holds
  // (results/README.md, "Limits").
  std::int64_t row_budget = max_results_folder_rows;
};

// The shipped measurements: $ATTNLAB_RESULTS if set, else the source tree's results/h100/.
std::filesystem::path default_results_folder();

// Reads every *.csv in `folder`, whatever their names, every gemms/*.csv under it, and its
// ceilings.toml where no ceilings are loaded yet. A missing folder, or a ceilings.toml the
// system refuses (a symlink loop), is a problem: nothing measured is never silent.
void load_results_folder(LoadedResults& results, const std::filesystem::path& folder);
// Reads one file, or every *.csv when `path` is a folder; replaces a file read before from the same path.
// An empty or missing path is a problem. Problems name paths through printable().
void load_results(LoadedResults& results, const std::filesystem::path& path);

// A file's name (without its folder) as views and commands print it: printable, on one line.
std::string shown_file_name(const std::filesystem::path& path);

// Rows held: attention runs, measured steps and context-parallel ranks (GEMM rows apart).
std::size_t total_rows(const LoadedResults& results);

}  // namespace attnlab
