#include "cli/results_folder.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/input_error.hpp"
#include "core/results_order.hpp"

namespace attnlab::cli {

std::filesystem::path measured_results_folder() {
  if (const char* env = std::getenv("ATTNLAB_RESULTS"); env && *env) return env;
  return std::filesystem::path(ATTNLAB_SOURCE_DIR) / "results" / "h100";
}

std::vector<std::pair<std::string, ResultRow>> read_results_folder(const std::filesystem::path& folder) {
  std::vector<std::pair<std::string, ResultRow>> rows;
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) return rows;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end(), results_file_order);  // a configuration's primary run first
  for (const auto& file : files) {
    try {
      for (ResultRow& r : read_results_csv(file)) rows.emplace_back(file.stem().string(), std::move(r));
    } catch (const InputError& e) {
      std::fprintf(stderr, "attnlab: warning: skipping a results file: %s\n", e.what());
    }
  }
  return rows;
}

}  // namespace attnlab::cli
