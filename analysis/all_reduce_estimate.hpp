#pragma once
// The article's 8 GPUs on paper, from the steps measured on fewer: the gradients' ring all-reduce
// (core/cost/ring_all_reduce.hpp) of each measured multi-GPU step row, the bus bandwidth its
// communication time reached, and the all-reduce of 8 GPUs at the bandwidth of the most GPUs
// measured below 8. An estimate, never a measurement: NCCL's ring keeps each GPU's bytes at
// 2(N − 1)/N of the gradients whatever N, but the bandwidth of more GPUs (another host's links,
// more hops) is assumed, not measured.
#include <optional>
#include <vector>

#include "analysis/measured_step.hpp"
#include "core/cost/ring_all_reduce.hpp"
#include "core/layout/implementation.hpp"
#include "core/scenario/model_shape.hpp"

namespace attnlab {

inline constexpr int article_gpus = 8;  // the article's nanochat d24 run

// One multi-GPU step row whose communication the profiler timed.
struct MeasuredAllReduce {
  const MeasuredStepPair* pair = nullptr;  // points into the pairs all_reduce_estimate was given
  Implementation layout = Implementation::packed;
  RingAllReduce ring;
  double communication_us = 0;  // step_communication_us: the collective's kernels, per step

  const StepRow& row() const { return pair->run(layout)->row; }
  double bus_bandwidth() const { return ring.bus_bandwidth(communication_us); }  // bytes per second
};

struct AllReduceEstimate {
  double gradient_bytes = 0;  // each GPU's gradients (parameter_bytes)
  // Each multi-GPU row with its communication timed, in pair order, packed before varlen.
  std::vector<MeasuredAllReduce> measured;
  // The row whose bandwidth prices 8 GPUs: the most GPUs measured below 8; of those, an all-reduce
  // after the backward first (its kernels ran alone, so their time is the transfer's), then pair
  // order. Empty where no row below 8 GPUs has its communication timed.
  std::optional<MeasuredAllReduce> basis;
  RingAllReduce article;  // the ring of 8 GPUs

  // 8 GPUs' all-reduce at the basis's bus bandwidth, µs per step; empty without a basis.
  std::optional<double> article_us() const;
};

// Empty without a pair of several GPUs in `measured`; `model` is the step's [model].
std::optional<AllReduceEstimate> all_reduce_estimate(const ModelShape& model,
                                                     const std::vector<MeasuredStepPair>& measured);

}  // namespace attnlab
