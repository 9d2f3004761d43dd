#pragma once
// A context-parallel forward's ranks, one after another on one GPU: each rank's compute
// (its steps' rounds and merges back to back, kernels/context_parallel.hpp, with the K/V of
// every step already in memory, as if every transfer were hidden) timed with CUDA events,
// and its merged output checked against the whole varlen forward of the same inputs on the
// same GPU. What the ranks' GPUs compute, without the communication.
#include <cstdint>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/scenario/scenario.hpp"
#include "kernels/context_parallel.hpp"
#include "kernels/kernel_id.hpp"
#include "reference/cp_partial.hpp"
#include "run/timing.hpp"

namespace attnlab {

struct CpRankTime {
  GpuTiming compute;                 // its steps back to back
  int steps = 0;                     // steps with a key its queries attend (the others are skipped)
  int launches = 0;                  // flash launches: the steps' rounds
  std::int64_t scores_computed = 0;  // in its rounds' visited tiles, all heads
  double rel_l2 = 0;                 // its output against the whole run's, over its queries
  double lse_max_abs = 0;            // and its LSE
};

struct CpExchangeTimes {
  CpStrategy strategy = CpStrategy::contiguous;
  CpExchange exchange = CpExchange::ring;
  std::vector<CpRankTime> ranks;
  double slowest_us() const;  // the largest median: the step waits for it
  double mean_us() const;
};

struct CpTimes {
  GpuTiming whole;  // the whole scenario's varlen forward on the GPU
  std::vector<CpExchangeTimes> exchanges;
};

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
