#pragma once
// The Hopper forward kernel, wgmma-sm90 (FlashAttention-3 style, sm_90a), behind
// padded, packed and varlen. Its algorithm is the teaching kernel's step for step
// (the layout decides the rows, the key tiles visited and the mask; the mask, the
// softmax and the work item are the shared ones of kernels/common/); what changes
// is who does what. A CTA is three warpgroups in four roles:
//  - the scheduler (kernels/common/scheduler.cuh) says which work items the CTA takes;
//  - the producer (producer.cuh, warpgroup 0) loads each item's tiles with TMA;
//  - two consumers (consumer.cuh, warpgroups 1 and 2) compute 64 query rows each;
//  - the epilogue (epilogue.cuh) normalizes and stores each consumer's output.
// Producer and consumers meet at the rings of pipeline.cuh. The producer gives most of
// its registers to the consumers (setmaxnreg).
// Tile: 128 query rows x 128 keys (kernel_tile(FlashKernel::wgmma_sm90)).
// The features F switch ideas off for the ladder (features.hpp); the comments
// describe the shipped kernel, shipped_features(D).
#include "kernels/common/scheduler.cuh"
#include "kernels/wgmma_sm90/consumer.cuh"
#include "kernels/wgmma_sm90/producer.cuh"

namespace attnlab::wgmma_sm90 {

// The scheduler of a kernel built with features F, over `work` work tiles: after its first
// item, a CTA takes the next from the atomic `counter` (F.counter_schedule), or CTA b
// takes b, b + grid, ...
template <ForwardFeatures F>
auto make_scheduler(int work, int* counter) {
  if constexpr (F.counter_schedule)
    return flash::CounterScheduler(work, counter);
  else
    return flash::StaticScheduler(work);
}
template <ForwardFeatures F>
using SchedulerOf = decltype(make_scheduler<F>(0, nullptr));

// `features`: features_key of the ForwardFeatures it is built with (a __global__
// template cannot take a class-type parameter); `Scheduler`: SchedulerOf those features.
// `counting`: the counting run's instantiation; `fold`: the one that folds each query's
// output into running sums (Params::o_sums) instead of storing it.
template <typename T, int D, int features, typename Scheduler, bool counting, bool fold>
__global__ void __launch_bounds__(kThreads, 1)
    forward(const __grid_constant__ Params params, const Scheduler scheduler) {
  constexpr ForwardFeatures F = features_of_key(features);
  extern __shared__ unsigned char shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes: tiles start on a multiple of it.
  const Shared<D, F> s{shared_raw + ((1024 - shared_address(shared_raw) % 1024) % 1024)};
  if (threadIdx.x == 0) {
    s.q_ring().init(1, kConsumerThreads);  // the producer fills, every consumer thread empties
    s.k_ring().init(1, kConsumerThreads);
    s.v_ring().init(1, kConsumerThreads);
    fence_barrier_init();
  }
  __syncthreads();

  const int warpgroup = warpgroup_index();
  if (warpgroup == 0) {
    release_registers<kProducerRegisters>();
    if (threadIdx.x < 32) produce<T, D, F>(params, s, scheduler);
  } else {
    claim_registers<kConsumerRegisters>();
    consume<T, D, F, counting, fold>(params, s, warpgroup - 1);
  }
}

}  // namespace attnlab::wgmma_sm90
