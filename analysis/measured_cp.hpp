#pragma once
// A context-parallel split's measured ranks, from the loaded results (the rows `attnlab cp --run
// --csv` writes, results/README.md, "Context parallelism"), for the views that set them beside
// the model: one run per (exchange, GPUs) of a scenario, N and strategy.
#include <string>
#include <string_view>
#include <vector>

#include "analysis/results_files.hpp"
#include "core/cost/context_parallel.hpp"

namespace attnlab {

struct MeasuredCpRun {
  CpExchange exchange = CpExchange::ring;
  int gpus = 1;                         // 1: the ranks one after another; N: one GPU each
  CpTransferSettings settings;          // over NCCL: the run's (its rows' cells)
  std::string gpu, file;                // the card, and the file's name as shown
  std::string tile;                     // the flash tile its kernel computed at, as the rows name it
  double whole_us = 0;                  // the whole varlen forward, same run
  std::vector<const ResultRow*> ranks;  // rank 0 to N - 1, each present

  double slowest_compute_us() const;  // the largest median: compute, K/V in memory
  double mean_compute_us() const;
  double slowest_run_us() const;   // over NCCL: the largest cp_run_us; 0 on one GPU
  double most_exposed_us() const;  // over NCCL: the largest cp_exposed_us
};

// "ring on 4 GPUs, 4 SMs left, 4 channels, registered buffers, 3 ring buffers": a run's exchange,
// where its ranks ran and its settings.
std::string measured_cp_title(const MeasuredCpRun& run);
// The model's imbalance (scores computed, max / mean) of the run's split of `scenario`, at the tile
// the run computed at (the model's default where the rows name none).
double measured_cp_model_imbalance(const Scenario& scenario, CpStrategy strategy, const MeasuredCpRun& run);
// A run in one line against `modelled_imbalance` (measured_cp_model_imbalance): its title, card and
// file, its imbalance, the slowest rank's compute against the whole run / N and, over several GPUs,
// the slowest run and the most exposed transfers. The CLI and the GUI print it.
std::string measured_cp_summary(const MeasuredCpRun& run, double modelled_imbalance);

// The runs of `scenario` over `ranks` ranks by `strategy` whose every rank has a row, one per
// (exchange, GPUs, settings): ring before all-gather, fewer GPUs first, default settings first;
// where files repeat a run, the first whole copy in the results' order.
std::vector<MeasuredCpRun> measured_cp_runs(const LoadedResults& results, std::string_view scenario, int ranks,
                                            CpStrategy strategy);

}  // namespace attnlab
