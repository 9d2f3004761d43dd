#pragma once
// The results folder the CLI reads measured rows from (`attnlab model`, `attnlab step`).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/results_csv.hpp"

namespace attnlab::cli {

// The shipped measurements: $ATTNLAB_RESULTS if set, else the source tree's results/h100/.
std::filesystem::path measured_results_folder();

// Every row of every *.csv in the folder, files in results_file_order (core/results_order.hpp:
// a configuration's primary run first, as in the README's tables and the GUI), each row with its file's
// stem. A broken file costs one warning line on stderr, never the command's output;
// a missing folder holds no rows.
std::vector<std::pair<std::string, ResultRow>> read_results_folder(const std::filesystem::path& folder);

}  // namespace attnlab::cli
