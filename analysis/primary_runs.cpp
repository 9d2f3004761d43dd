#include "analysis/primary_runs.hpp"

#include <algorithm>

#include "analysis/number_format.hpp"

namespace attnlab {

Configuration configuration_of(const ResultRow& r) {
  return {r.scenario, r.dtype, r.heads, r.head_dim, r.causal, r.pass};
}

Configuration own_configuration(const Scenario& s, Pass pass) {
  return {s.name, s.dtype, s.heads, s.head_dim, s.causal, pass};
}

double MeasuredRun::fastest_us() const {
  double best = *primary.row->median_us;
  for (const Run& r : others) best = std::min(best, *r.row->median_us);
  return best;
}

double MeasuredRun::slowest_us() const {
  double worst = *primary.row->median_us;
  for (const Run& r : others) worst = std::max(worst, *r.row->median_us);
  return worst;
}

const Run* MeasuredRun::with_measured_bytes() const {
  if (primary.row->hbm_bytes_measured) return &primary;
  for (const Run& r : others)
    if (r.row->hbm_bytes_measured) return &r;
  return nullptr;
}

std::vector<MeasuredRun> primary_runs(const LoadedResults& results, const std::function<bool(const ResultRow&)>& keep) {
  std::vector<MeasuredRun> runs;
  for (const ResultsFile& file : results.files)
    for (const ResultRow& row : file.rows) {
      if (!row.median_us || !keep(row)) continue;
      const Run run{&row, &file.path};
      const auto same = std::find_if(runs.begin(), runs.end(), [&](const MeasuredRun& m) {
        const ResultRow& p = *m.primary.row;
        return p.source == row.source && p.kernel == row.kernel && p.implementation == row.implementation &&
               configuration_of(p).holds(row);
      });
      if (same == runs.end())
        runs.push_back({run, {}});
      else
        same->others.push_back(run);
    }
  return runs;
}

std::optional<MeasuredRun> find_run(const LoadedResults& results, const Configuration& c, std::string_view source,
                                    std::string_view implementation, std::optional<std::string_view> kernel) {
  std::vector<MeasuredRun> found = primary_runs(results, [&](const ResultRow& r) {
    return r.source == source && r.implementation == implementation && (!kernel || r.kernel == *kernel) && c.holds(r);
  });
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::vector<Configuration> measured_configurations(const std::vector<MeasuredRun>& runs, const Configuration& own) {
  std::vector<Configuration> out;
  for (const MeasuredRun& m : runs)
    if (std::find(out.begin(), out.end(), configuration_of(*m.primary.row)) == out.end())
      out.push_back(configuration_of(*m.primary.row));
  std::stable_partition(out.begin(), out.end(), [&](const Configuration& c) { return c == own; });
  return out;
}

std::string file_name(const Run& run) { return shown_file_name(*run.file); }

std::string spread_text(const MeasuredRun& run) {
  if (run.runs() < 2) return "";
  const std::string fastest = format_us(run.fastest_us()), slowest = format_us(run.slowest_us());
  return std::to_string(run.runs()) + " runs: " + (fastest == slowest ? fastest + " each" : fastest + " to " + slowest);
}

}  // namespace attnlab
