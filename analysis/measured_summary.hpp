#pragma once
// A scenario's measurements in a few lines: for each pass and implementation, our fastest
// primary run (of any flash kernel) and the fastest peer that ran the same layout, and
// their ratio. `attnlab model` prints it under the model.
#include <optional>
#include <vector>

#include "analysis/primary_runs.hpp"
#include "core/layout/implementation.hpp"

namespace attnlab {

struct SummaryLine {
  Pass pass = Pass::fwd;
  Implementation implementation = Implementation::varlen;
  std::optional<MeasuredRun> ours, best_peer;  // empty where nothing of that kind was measured

  // The peer's median over ours: above 1, ours is faster. Empty without both.
  std::optional<double> peer_over_ours() const;
};

// The lines of `shape` (its `pass` is ignored: both passes), forward first, naive to varlen,
// each with at least one run.
std::vector<SummaryLine> measured_summary(const LoadedResults& results, const Configuration& shape);

}  // namespace attnlab
