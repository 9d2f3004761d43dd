#pragma once
// What a context-parallel rank runs and is checked against, shared by the ranks run one after
// another on one GPU (run/cp_timing.hpp) and one process per GPU over NCCL (run/cp_over_nccl.hpp):
// the scenario's inputs and whole forward on this GPU, and a rank's steps on the device.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/cost/cp_piece_layouts.hpp"
#include "core/scenario/scenario.hpp"
#include "kernels/context_parallel.hpp"
#include "kernels/kernel_id.hpp"
#include "reference/cp_partial.hpp"
#include "run/cp_timing.hpp"
#include "run/timing.hpp"

namespace attnlab {

// Seeded random Q, K, V of the scenario's shape in canonical token order on this GPU, and the
// whole varlen forward of them: timed (`warmup` untimed runs, then `reps`), its O and LSE kept.
struct CpWholeRun {
  CpWholeRun(const Scenario& scenario, FlashKernel kernel, int warmup, int reps, std::uint64_t seed);
  // The whole run's O and LSE at `queries` (a rank's pieces), as the partial over every key.
  CpPartial at(const std::vector<CpPiece>& queries) const;
  // A rank's merged `sums` of `queries` against this run: its rel_l2 and lse_max_abs in `out`.
  void check(const CpOutputSums& sums, const std::vector<CpPiece>& queries, CpRankTime& out) const;

  Layout varlen;
  AttentionProblem problem;
  AttentionTensors canonical;
  GpuTiming time;
  std::vector<float> o, lse;  // [token][head][head_dim], [token][head]
};

// One rank's steps under one exchange (cp_schedule), each step's pieces at the kernel's tile:
// on the device where the step has a key its queries attend, null where it has none.
struct CpRankSteps {
  CpRankSteps(const Layout& varlen, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards,
              CpExchange exchange, int rank, FlashKernel kernel, int heads);
  // A rank's time with its steps, launches and scores counted, nothing timed yet.
  CpRankTime counted() const;
  std::vector<std::vector<int>> schedule;                // each step's K/V holders
  std::vector<std::unique_ptr<CpPieceLayouts>> layouts;  // a step's; each DeviceCpPieces holds its address
  std::vector<std::unique_ptr<DeviceCpPieces>> pieces;
  int steps = 0;                     // steps with pieces on the device
  int launches = 0;                  // their rounds
  std::int64_t scores_computed = 0;  // in the rounds' visited tiles, all heads
};

}  // namespace attnlab
