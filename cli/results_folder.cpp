#include "cli/results_folder.hpp"

#include <cstdio>

namespace attnlab::cli {

LoadedResults load_measured_results() {
  LoadedResults results;
  load_results_folder(results, default_results_folder());
  for (const std::string& problem : results.problems)
    std::fprintf(stderr, "attnlab: warning: skipping a results file: %s\n", problem.c_str());
  return results;
}

}  // namespace attnlab::cli
