#include "analysis/measured_cp.hpp"

#include <algorithm>
#include <tuple>

namespace attnlab {

namespace {

// What makes two runs the same run, whichever file holds them.
std::tuple<CpExchange, int, int, int> key(const MeasuredCpRun& r) {
  return {r.exchange, r.gpus, r.sm_margin, r.transfer_channels};
}

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

std::vector<MeasuredCpRun> measured_cp_runs(const LoadedResults& results, std::string_view scenario, int ranks,
                                            CpStrategy strategy) {
  std::vector<MeasuredCpRun> runs;
  for (const ResultsFile& file : results.files)
    for (const ResultRow& row : file.cp) {
      if (row.scenario != scenario || row.ranks != ranks || row.cp_strategy != cp_strategy_name(strategy)) continue;
      const CpExchange exchange = parse_cp_exchange(row.cp_exchange).value_or(CpExchange::ring);
      const int gpus = row.cp_gpus.value_or(1);
      const int margin = row.cp_sm_margin.value_or(0), channels = row.cp_transfer_channels.value_or(0);
      const std::string name = shown_file_name(file.path);
      auto run = std::find_if(runs.begin(), runs.end(), [&](const MeasuredCpRun& r) {
        return key(r) == std::tuple(exchange, gpus, margin, channels) && r.file == name;
      });
      if (run == runs.end()) {
        runs.push_back({exchange, gpus, margin, channels, row.gpu, name, row.cp_whole_us.value_or(0),
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
