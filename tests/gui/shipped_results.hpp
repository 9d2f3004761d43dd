#pragma once
// The H100 results shipped in results/h100/, loaded as the GUI loads them.
#include <string>

#include "analysis/results_files.hpp"

namespace attnlab::gui {

inline const std::string shipped_results_folder = std::string(ATTNLAB_SOURCE_DIR) + "/results/h100";

inline LoadedResults shipped_results() {
  LoadedResults results;
  load_results_folder(results, shipped_results_folder);
  return results;
}

}  // namespace attnlab::gui
