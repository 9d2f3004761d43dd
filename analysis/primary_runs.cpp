#include "analysis/primary_runs.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

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

namespace {

// What makes two rows runs of one (configuration, source, kernel, implementation): compared as a
// tuple, so a map finds a row's run in log time (the views' tables hold up to the folder's rows).
auto run_key(const ResultRow& r) {
  return std::tuple(std::string_view(r.scenario), r.dtype, r.heads, r.head_dim, r.causal, r.pass,
                    std::string_view(r.source), std::string_view(r.kernel), std::string_view(r.implementation));
}

auto configuration_key(const Configuration& c) {
  return std::tuple(c.scenario, c.dtype, c.heads, c.head_dim, c.causal, c.pass);
}

}  // namespace

std::vector<MeasuredRun> primary_runs(const LoadedResults& results, const std::function<bool(const ResultRow&)>& keep) {
  std::vector<MeasuredRun> runs;
  std::map<decltype(run_key(ResultRow{})), std::size_t> index;  // the key's run in `runs`
  for (const ResultsFile& file : results.files)
    for (const ResultRow& row : file.rows) {
      if (!row.median_us || !keep(row)) continue;
      const Run run{&row, &file.path};
      const auto [at, added] = index.try_emplace(run_key(row), runs.size());
      if (added)
        runs.push_back({run, {}});
      else
        runs[at->second].others.push_back(run);
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
  std::set<decltype(configuration_key(own))> seen;
  for (const MeasuredRun& m : runs)
    if (Configuration c = configuration_of(*m.primary.row); seen.insert(configuration_key(c)).second) out.push_back(c);
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
