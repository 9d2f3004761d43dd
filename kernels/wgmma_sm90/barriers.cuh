#pragma once
// The named barriers of the forward and of the warp-specialized backward (bar.sync ids;
// 0 is __syncthreads'), by name.
#include "kernels/wgmma_sm90/ptx.cuh"
#include "kernels/wgmma_sm90/shape.hpp"

namespace attnlab::wgmma_sm90 {

enum class NamedBarrier : int {
  // One consumer warpgroup's 128 threads: its epilogue stages and stores its own rows.
  consumer0_rows = 1,
  consumer1_rows = 2,
  // The consumers' turns to issue their wgmmas: consumer c waits on its own, hands over on the other's.
  consumer0_turn = 3,
  consumer1_turn = 4,
};

__device__ __forceinline__ NamedBarrier rows_barrier(int consumer) {
  return NamedBarrier(int(NamedBarrier::consumer0_rows) + consumer);
}
__device__ __forceinline__ NamedBarrier turn_barrier(int consumer) {
  return NamedBarrier(int(NamedBarrier::consumer0_turn) + consumer);
}

// The warp-specialized backward's (backward_specialized_kernel.cuh).
enum class BackwardBarrier : int {
  // Both consumers' 256 threads: every row of dSᵀ staged; at the end, dK and dV.
  consumers = 1,
  // A consumer's 128 threads and the dQ writer's warp: the consumer's dQ is staged (full),
  // the writer's bulk reductions have read the staging (empty).
  dq_full0 = 2,
  dq_full1 = 3,
  dq_empty0 = 4,
  dq_empty1 = 5,
};
inline constexpr int kQueryGradientHandoffThreads = kWarpgroup + 32;

__device__ __forceinline__ BackwardBarrier dq_full_barrier(int consumer) {
  return BackwardBarrier(int(BackwardBarrier::dq_full0) + consumer);
}
__device__ __forceinline__ BackwardBarrier dq_empty_barrier(int consumer) {
  return BackwardBarrier(int(BackwardBarrier::dq_empty0) + consumer);
}

// Waits until `threads` threads have reached barrier `b`.
__device__ __forceinline__ void sync_threads_of(NamedBarrier b, int threads) { sync_threads_of(int(b), threads); }
// Counts towards barrier `b`'s `threads` without waiting.
__device__ __forceinline__ void arrive_threads_of(NamedBarrier b, int threads) { arrive_threads_of(int(b), threads); }
__device__ __forceinline__ void sync_threads_of(BackwardBarrier b, int threads) { sync_threads_of(int(b), threads); }
__device__ __forceinline__ void arrive_threads_of(BackwardBarrier b, int threads) {
  arrive_threads_of(int(b), threads);
}

}  // namespace attnlab::wgmma_sm90
