#pragma once
// The forward's scheduler: which work items a CTA of the persistent grid takes. An
// index counts the work list's items times the heads (index = item * heads + head:
// heaviest rows first, a row's tiles and heads together, so the CTAs running at one
// time share that row's K and V in L2). CTA b starts with item b; each scheduler
// says which comes next. The producer asks, and passes each item to the consumers
// beside its Q tile.
#include "kernels/common/params.cuh"
#include "kernels/wgmma_sm90/features.hpp"

namespace attnlab::wgmma_sm90 {

// CTA b takes items b, b + gridDim.x, ...
struct StaticScheduler {
  __device__ int get_initial_work() const { return blockIdx.x; }
  __device__ int get_next_work(int current) const { return current + gridDim.x; }
};

// After its first item, whichever CTA asks first takes the next item from an atomic
// counter, so a CTA that drew light items takes more. `counter` is zero at launch.
struct CounterScheduler {
  int* counter;
  __device__ int get_initial_work() const { return blockIdx.x; }
  __device__ int get_next_work(int) const { return gridDim.x + atomicAdd(counter, 1); }
};

// The scheduler of a kernel built with features F (F.counter_schedule: the counter's).
template <ForwardFeatures F>
__device__ __forceinline__ auto scheduler_of(const flash::Params& p) {
  if constexpr (F.counter_schedule)
    return CounterScheduler{p.work_counter};
  else
    return StaticScheduler{};
}

}  // namespace attnlab::wgmma_sm90
