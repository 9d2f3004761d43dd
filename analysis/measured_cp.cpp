#include "analysis/measured_cp.hpp"

#include <algorithm>
#include <tuple>

#include "analysis/number_format.hpp"
#include "core/io/input_error.hpp"
#include "core/layout/tile_name.hpp"

namespace attnlab {

namespace {

// What makes two runs the same run, whichever file holds them.
std::tuple<CpExchange, int, CpTransferSettings> key(const MeasuredCpRun& r) { return {r.exchange, r.gpus, r.settings}; }

double largest(const MeasuredCpRun& run, const std::optional<double> ResultRow::*column) {
  double most = 0;
  for (const ResultRow* r : run.ranks) most = std::max(most, (r->*column).value_or(0));
  return most;
}

}  // namespace

double MeasuredCpRun::slowest_compute_us() const { return largest(*this, &ResultRow::median_us); }

double MeasuredCpRun::mean_compute_us() const {
  double sum = 0;
  for (const ResultRow* r : ranks) sum += r->median_us.value_or(0);
  return ranks.empty() ? 0 : sum / double(ranks.size());
}

double MeasuredCpRun::slowest_run_us() const { return largest(*this, &ResultRow::cp_run_us); }

double MeasuredCpRun::most_exposed_us() const { return largest(*this, &ResultRow::cp_exposed_us); }

std::string measured_cp_title(const MeasuredCpRun& run) {
  std::string title = std::string(cp_exchange_name(run.exchange)) + " on " + count_of(run.gpus, "GPU");
  const CpTransferSettings& s = run.settings;
  const CpTransferSettings defaults;
  if (s.sm_margin != defaults.sm_margin) title += ", " + std::to_string(s.sm_margin) + " SMs left";
  if (s.transfer_channels != defaults.transfer_channels) title += ", " + count_of(s.transfer_channels, "channel");
  if (s.registered_buffers) title += ", registered buffers";
  if (s.ring_buffers != defaults.ring_buffers) title += ", " + std::to_string(s.ring_buffers) + " ring buffers";
  return title;
}

double measured_cp_model_imbalance(const Scenario& scenario, CpStrategy strategy, const MeasuredCpRun& run) {
  const TileShape tile = parse_tile_name(run.tile).value_or(default_flash_tile);
  return model_context_parallel(scenario, int(run.ranks.size()), strategy, tile).computed_imbalance;
}

std::string measured_cp_summary(const MeasuredCpRun& run, double modelled_imbalance) {
  const int ranks = int(run.ranks.size());
  const double share = run.whole_us / ranks;
  std::string line = measured_cp_title(run) + " (" + printable(run.gpu, 256) + ", " + printable(run.file, 256) +
                     "): imbalance " + format_ratio(run.slowest_compute_us() / run.mean_compute_us()) + " (model " +
                     format_ratio(modelled_imbalance) + (run.tile.empty() ? "" : " at " + run.tile) +
                     "); slowest compute " + format_us(run.slowest_compute_us()) + ", " +
                     format_ratio(run.slowest_compute_us() / share) + " the whole / " + std::to_string(ranks);
  if (run.gpus > 1)
    line += "; slowest run " + format_us(run.slowest_run_us()) + ", " + format_ratio(run.slowest_run_us() / share) +
            "; transfers exposed up to " + format_us(run.most_exposed_us());
  return line;
}

std::vector<MeasuredCpRun> measured_cp_runs(const LoadedResults& results, std::string_view scenario, int ranks,
                                            CpStrategy strategy) {
  std::vector<MeasuredCpRun> runs;
  for (const ResultsFile& file : results.files)
    for (const ResultRow& row : file.cp) {
      if (row.scenario != scenario || row.ranks != ranks || row.cp_strategy != cp_strategy_name(strategy)) continue;
      const CpExchange exchange = parse_cp_exchange(row.cp_exchange).value_or(CpExchange::ring);
      const int gpus = row.cp_gpus.value_or(1);
      const CpTransferSettings settings = cp_transfer_settings(row);
      const std::string name = shown_file_name(file.path);
      auto run = std::find_if(runs.begin(), runs.end(), [&](const MeasuredCpRun& r) {
        return key(r) == std::tuple(exchange, gpus, settings) && r.file == name;
      });
      if (run == runs.end()) {
        runs.push_back({exchange, gpus, settings, row.gpu, name, row.tile, row.cp_whole_us.value_or(0),
                        std::vector<const ResultRow*>(std::size_t(ranks), nullptr)});
        run = runs.end() - 1;
      }
      const int rank = row.cp_rank.value_or(0);
      if (!run->ranks[std::size_t(rank)]) run->ranks[std::size_t(rank)] = &row;
    }
  std::erase_if(runs, [](const MeasuredCpRun& r) {
    return std::any_of(r.ranks.begin(), r.ranks.end(), [](const ResultRow* row) { return row == nullptr; });
  });
  // Runs are in file order: the first whole one of each (exchange, GPUs) stays.
  std::stable_sort(runs.begin(), runs.end(),
                   [](const MeasuredCpRun& a, const MeasuredCpRun& b) { return key(a) < key(b); });
  runs.erase(std::unique(runs.begin(), runs.end(),
                         [](const MeasuredCpRun& a, const MeasuredCpRun& b) { return key(a) == key(b); }),
             runs.end());
  return runs;
}

}  // namespace attnlab
