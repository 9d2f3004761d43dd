#pragma once
// A context-parallel forward's ranks, one after another on one GPU: each rank's compute
// (its steps' rounds and merges back to back, kernels/context_parallel.hpp, with the K/V of
// every step already in memory, as if every transfer were hidden) timed with CUDA events,
// and its merged output checked against the whole varlen forward of the same inputs on the
// same GPU. What the ranks' GPUs compute, without the communication; run/cp_over_nccl.hpp
// adds it, one process per GPU, in the same types.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/scenario/scenario.hpp"
#include "kernels/context_parallel.hpp"
#include "kernels/kernel_id.hpp"
#include "reference/cp_partial.hpp"
#include "run/run_info.hpp"
#include "run/timing.hpp"

namespace attnlab {

// A rank's run with its K/V sent over NCCL (run/cp_over_nccl.hpp): medians over the timed runs.
struct CpTransferTime {
  double wall_us = 0;               // from a barrier of all ranks to its last launch
  double compute_us = 0;            // its steps' kernels in that run, the transfers running beside them
  double transfer_us = 0;           // its transfers (ring: each step's send and receive, summed)
  double exposed_us = 0;            // wall - compute: time its kernels waited for K/V
  std::int64_t bytes_received = 0;  // K and V, per run
  // Where the exposed time fell: before each step, the gap after the step before (before step 0,
  // after the run's start) while its K/V were still arriving; of the run's `steps`, the first 16.
  int steps = 0;
  std::array<double, 16> step_wait_us{};
  double hidden_us() const { return transfer_us > exposed_us ? transfer_us - exposed_us : 0; }
};

struct CpRankTime {
  GpuTiming compute;                       // its steps back to back, no transfer running
  int steps = 0;                           // steps with a key its queries attend (the others are skipped)
  int launches = 0;                        // flash launches: the steps' rounds
  std::int64_t scores_computed = 0;        // in its rounds' visited tiles, all heads
  double rel_l2 = 0;                       // its output against the whole run's, over its queries
  double lse_max_abs = 0;                  // and its LSE
  std::optional<CpTransferTime> transfer;  // over NCCL; empty on one GPU
};

struct CpExchangeTimes {
  CpStrategy strategy = CpStrategy::contiguous;
  CpExchange exchange = CpExchange::ring;
  std::vector<CpRankTime> ranks;
  double slowest_us() const;  // the largest median compute: the step waits for it
  double mean_us() const;
  double slowest_run_us() const;   // over NCCL: the largest run (wall), 0 on one GPU
  double most_exposed_us() const;  // over NCCL: the largest exposed transfer time
};

struct CpTimes {
  GpuTiming whole;  // the whole scenario's varlen forward on the GPU (rank 0's, over NCCL)
  std::vector<CpExchangeTimes> exchanges;
  FlashKernel kernel = FlashKernel::wgmma_sm90;  // the kernel every rank ran
  int gpus = 1;                                  // 1: the ranks one after another; N: one process per GPU
  std::string gpu;                               // as the driver reports it
  std::string nccl_version;                      // empty on one GPU
  CpTransferSettings settings;                   // over NCCL
};

// One results row per (strategy, exchange, rank) of a run (results/README.md, "Context
// parallelism"): the rank's compute as its time, its tokens (queries) and its scores computed
// and useful (the model's, `models` at the run's tile, one a strategy), its error against the
// whole run; and over NCCL its run, transfers, exposed time and bytes received.
std::vector<ResultRow> cp_result_rows(const Scenario& scenario, const std::vector<CpCost>& models, const CpTimes& times,
                                      const RunInfo& run);

// A rank's sums as the reference's partial of its `queries` (the pieces the sums hold, in
// order), for reference/cp_forward.hpp's comparisons.
CpPartial cp_partial_of(const CpOutputSums& sums, const std::vector<CpPiece>& queries);

// Every plan (one a strategy) by ring and by all-gather, on seeded random Q, K, V of the
// scenario's shape, through `kernel`: `warmup` untimed runs, then `reps` timed, of each rank
// and of the whole forward. Throws NoGpuError without a GPU, GpuMemoryError before an
// allocation that does not fit.
CpTimes time_context_parallel(const Scenario& scenario, const std::vector<CpPlan>& plans, FlashKernel kernel,
                              int warmup, int reps, std::uint64_t seed);

}  // namespace attnlab
