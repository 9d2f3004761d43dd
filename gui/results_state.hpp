#pragma once
// The results files the Timings and Costs views show: the shipped folder plus any the
// user loads, kept in the order that decides which run of a configuration is the
// primary one (see primary_runs.hpp). A file that cannot be read is reported (one
// line naming it) and skipped.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "core/results_csv.hpp"
#include "core/results_order.hpp"

namespace attnlab::gui {

struct ResultsFile {
  std::filesystem::path path;
  std::vector<ResultRow> rows;
};

struct ResultsState {
  std::vector<ResultsFile> files;     // in results_file_order (core/results_order.hpp): the primary run's file first
  std::vector<std::string> problems;  // files skipped, and why
  std::string load_path;              // the Timings view's "load a file or folder" field
  bool all_scenarios = false;         // else only the rows of the current scenario (all when it has none)
  // The Timings view's choice of shape, as "bf16 d64 h16"; empty, or a shape this scenario was not measured in: its own.
  std::string shape;
};

// Reads every *.csv in `folder`. A missing folder adds nothing.
void load_results_folder(ResultsState& results, const std::filesystem::path& folder);
// Reads one file, or every *.csv when `path` is a folder; replaces a file read before from the same path.
void load_results(ResultsState& results, const std::filesystem::path& path);

std::size_t total_rows(const ResultsState& results);

}  // namespace attnlab::gui
