#pragma once
// The results the Timings, Costs and Training step views show (the shipped folder plus
// any file or folder loaded from the Timings view), with the Timings view's choices.
#include <string>

#include "analysis/results_files.hpp"

namespace attnlab::gui {

struct ResultsState : LoadedResults {
  std::string load_path;       // the Timings view's "load a file or folder" field
  bool all_scenarios = false;  // else only the rows of the current scenario (all when it has none)
  // The Timings view's choice of shape, as "bf16 d64 h16"; empty, or a shape this scenario was not measured in: its
  // own.
  std::string shape;
};

}  // namespace attnlab::gui
