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
  int gpus = 1;                              // 1: the ranks one after another; N: one GPU each
  int sm_margin = 0, transfer_channels = 0;  // over NCCL: the run's settings (0: none, NCCL's own)
  std::string gpu, file;                     // the card, and the file's name as shown
  double whole_us = 0;                       // the whole varlen forward, same run
  std::vector<const ResultRow*> ranks;       // rank 0 to N - 1, each present

  double slowest_compute_us() const;  // the largest median: compute, K/V in memory
  double mean_compute_us() const;
  double slowest_run_us() const;   // over NCCL: the largest cp_run_us; 0 on one GPU
  double most_exposed_us() const;  // over NCCL: the largest cp_exposed_us
};

// The runs of `scenario` over `ranks` ranks by `strategy` whose every rank has a row, one per
// (exchange, GPUs, settings): ring before all-gather, fewer GPUs first, default settings first;
// where files repeat a run, the first whole copy in the results' order.
std::vector<MeasuredCpRun> measured_cp_runs(const LoadedResults& results, std::string_view scenario, int ranks,
                                            CpStrategy strategy);

}  // namespace attnlab
