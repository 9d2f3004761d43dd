#include "analysis/measured_summary.hpp"

#include <algorithm>

namespace attnlab {

namespace {

// The run of `runs` with the lowest primary median, if any.
std::optional<MeasuredRun> fastest(std::vector<MeasuredRun> runs) {
  const auto best = std::min_element(runs.begin(), runs.end(), [](const MeasuredRun& a, const MeasuredRun& b) {
    return *a.primary.row->median_us < *b.primary.row->median_us;
  });
  if (best == runs.end()) return std::nullopt;
  return std::move(*best);
}

}  // namespace

std::optional<double> SummaryLine::peer_over_ours() const {
  if (!ours || !best_peer) return std::nullopt;
  return *best_peer->primary.row->median_us / *ours->primary.row->median_us;
}

std::vector<SummaryLine> measured_summary(const LoadedResults& results, const Configuration& shape) {
  std::vector<SummaryLine> lines;
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    Configuration c = shape;
    c.pass = pass;
    for (Implementation i : all_implementations) {
      const auto of = [&](bool ours) {
        return primary_runs(results, [&](const ResultRow& r) {
          return c.holds(r) && r.implementation == implementation_name(i) && (r.source == our_source) == ours;
        });
      };
      SummaryLine line{pass, i, fastest(of(true)), fastest(of(false))};
      if (line.ours || line.best_peer) lines.push_back(std::move(line));
    }
  }
  return lines;
}

}  // namespace attnlab
