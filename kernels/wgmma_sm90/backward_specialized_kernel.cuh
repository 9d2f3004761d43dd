#pragma once
// The Hopper backward with FlashAttention-3's roles (sm_90a): the algorithm, the work
// items and the five products of backward_kernel.cuh, a (key tile, KV head) item at a
// time, but its copies leave the warpgroups that compute. A CTA is three warpgroups:
//  - the producer (backward_producer.cuh, warpgroup 0): a loader warp takes the items from
//    the scheduler, publishes each in an item slot and copies its K and V, then each step's
//    Q, dO and query info by TMA into a ring of two stages; a writer warp adds each step's
//    staged dQ to the fp32 accumulator by TMA bulk reductions, or (first_store) stores the
//    first dQ to reach each block of it and adds the rest;
//  - two consumers (backward_consumer.cuh, warpgroups 1 and 2), 64 keys each, which
//    wait on the ring's mbarriers instead of copying, meet once a step, and take the
//    registers the producer gives back (setmaxnreg).
// A CTA takes one item (OneCtaPerWork), or, persistent, walks items from CounterScheduler
// until the work is done, the step ring running on from one item to the next.
#include "kernels/common/scheduler.cuh"
#include "kernels/wgmma_sm90/backward_consumer.cuh"
#include "kernels/wgmma_sm90/backward_producer.cuh"

namespace attnlab::wgmma_sm90 {

// A CTA per item, or (persistent) one per SM taking items from the backward's counter.
template <bool persistent>
auto make_backward_scheduler(int work, int* counter) {
  if constexpr (persistent)
    return flash::CounterScheduler(work, counter);
  else
    return flash::OneCtaPerWork(work);
}
template <bool persistent>
using BackwardSchedulerOf = decltype(make_backward_scheduler<persistent>(0, nullptr));

template <typename T, int D, bool persistent, bool first_store, bool counting>
__global__ void __launch_bounds__(kThreads, 1) backward_specialized(const __grid_constant__ BackwardParams params,
                                                                    const BackwardSchedulerOf<persistent> scheduler) {
  static_assert(D == 64 || D == 128);
  extern __shared__ unsigned char shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes: tiles start on a multiple of it.
  const BackwardShared<T, D> s{shared_raw + ((1024 - shared_address(shared_raw) % 1024) % 1024)};
  if (threadIdx.x == 0) {
    s.step_ring().init(kLoaderLanes, kConsumerThreads);  // the loader's lanes fill, every consumer thread empties
    barrier_init(s.key_barrier(), kLoaderLanes);
    barrier_init(s.key_empty_barrier(), kConsumerThreads + kWriterLanes);
    barrier_init(s.crossing_barrier(), 1);
    fence_barrier_init();
  }
  __syncthreads();

  const int warpgroup = warpgroup_index();
  if (warpgroup == 0) {
    release_registers<kProducerRegisters>();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) load_items<T, D, persistent>(params, s, scheduler, lane);
    if (warp == 1) write_query_gradients<T, D, persistent, first_store>(params, s, lane);
  } else {
    claim_registers<kConsumerRegisters>();
    consume_items<T, D, persistent, first_store, counting>(params, s, warpgroup - 1);
  }
}

}  // namespace attnlab::wgmma_sm90
