#pragma once
// The results the CLI compares its model with (`attnlab model`, `attnlab step`).
#include "analysis/results_files.hpp"

namespace attnlab::cli {

// default_results_folder() loaded; each file that cannot be read costs one warning line
// on stderr, never the command's output.
LoadedResults load_measured_results();

}  // namespace attnlab::cli
