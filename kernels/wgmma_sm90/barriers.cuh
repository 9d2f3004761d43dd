#pragma once
// The forward kernel's named barriers (bar.sync ids; 0 is __syncthreads'), by name.
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

// Waits until `threads` threads have reached barrier `b`.
__device__ __forceinline__ void sync_threads_of(NamedBarrier b, int threads) { sync_threads_of(int(b), threads); }
// Counts towards barrier `b`'s `threads` without waiting.
__device__ __forceinline__ void arrive_threads_of(NamedBarrier b, int threads) { arrive_threads_of(int(b), threads); }

}  // namespace attnlab::wgmma_sm90
