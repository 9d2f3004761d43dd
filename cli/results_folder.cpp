#include "cli/results_folder.hpp"

#include <cstdio>

#include "core/io/input_error.hpp"

namespace attnlab::cli {

LoadedResults load_measured_results() {
  LoadedResults results;
  load_results_folder(results, default_results_folder());
  for (const std::string& problem : results.problems)
    std::fprintf(stderr, "attnlab: warning: results: %s\n", printable(problem, 4096).c_str());
  return results;
}

}  // namespace attnlab::cli
