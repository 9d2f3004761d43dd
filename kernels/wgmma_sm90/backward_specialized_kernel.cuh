#pragma once
// The Hopper backward with FlashAttention-3's roles (sm_90a): the algorithm, the work
// items and the five products of backward_kernel.cuh, one CTA per (key tile, KV head),
// but its copies leave the warpgroups that compute. A CTA is three warpgroups:
//  - the producer (backward_producer.cuh, warpgroup 0): a loader warp copies K and V,
//    then each step's Q, dO and query info by TMA into a ring of two stages; a writer
//    warp adds each step's staged dQ to the fp32 accumulator by TMA bulk reductions;
//  - two consumers (backward_consumer.cuh, warpgroups 1 and 2), 64 keys each, which
//    wait on the ring's mbarriers instead of copying, meet once a step, and take the
//    registers the producer gives back (setmaxnreg).
#include "kernels/common/scheduler.cuh"
#include "kernels/wgmma_sm90/backward_consumer.cuh"
#include "kernels/wgmma_sm90/backward_producer.cuh"

namespace attnlab::wgmma_sm90 {

template <typename T, int D, bool counting>
__global__ void __launch_bounds__(kThreads, 1)
    backward_specialized(const __grid_constant__ BackwardParams params, const flash::OneCtaPerWork scheduler) {
  static_assert(D == 64 || D == 128);
  extern __shared__ unsigned char shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes: tiles start on a multiple of it.
  const BackwardShared<D> s{shared_raw + ((1024 - shared_address(shared_raw) % 1024) % 1024)};
  const KeyItem<T, D> item(params.flash, scheduler.get_initial_work().index);
  if (threadIdx.x == 0) {
    s.step_ring().init(kLoaderLanes, kConsumerThreads);  // the loader's lanes fill, every consumer thread empties
    barrier_init(s.key_barrier(), kLoaderLanes);
    barrier_init(s.crossing_barrier(), 1);
    fence_barrier_init();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / kWarpgroup;
  if (warpgroup == 0) {
    release_registers<kProducerRegisters>();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) load_steps<T, D>(params, s, item, lane);
    if (warp == 1) write_query_gradients<T, D>(params, s, item, lane);
  } else {
    claim_registers<kConsumerRegisters>();
    consume_steps<T, D, counting>(params, s, item, warpgroup - 1);
  }
}

}  // namespace attnlab::wgmma_sm90
