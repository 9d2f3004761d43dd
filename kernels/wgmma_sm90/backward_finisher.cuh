#pragma once
// The warp-specialized backward's dQ finish (the `finish_dq` feature): every key tile a
// query tile visits adds its dQ to the step's fp32 sums, and the last one to do so
// converts them to the dtype, so no pass after the kernel reads the whole accumulator
// back from HBM. Two roles of the producer warpgroup:
//  - the dQ writer (backward_producer.cuh), once a step's bulk reductions have added it,
//    counts the arrival of its key tile at the step's counter (one per step position and
//    query head, in global memory, zeroed with Δ); the arrival that completes the count
//    (key_tiles_visited of the step's query tile: each visiting key tile adds both of the
//    tile's steps once) queues the step here;
//  - the finishers (warps 2 and 3) take each queued step, read its sums from L2, where the
//    other SMs' reductions were just added, and store dQ = scale · sums in the dtype.
// Only the row's own positions are finished: a step that runs past the row's end adds
// zeros to the next row's sums, which the next row's own steps finish.
#include <cstdint>

#include "kernels/wgmma_sm90/backward_params.cuh"
#include "kernels/wgmma_sm90/backward_shared_memory.cuh"
#include "kernels/wgmma_sm90/ptx.cuh"

namespace attnlab::wgmma_sm90 {

inline constexpr int kFinisherThreads = 64;  // warps 2 and 3 of the producer warpgroup

// The writer's end of the queue: where the next finished tile goes. Lane 0 of the writer.
template <int D>
class FinishQueue {
 public:
  explicit __device__ FinishQueue(const BackwardShared<D>& s) : s_(s) {}

  // Counts the arrival of the step (query head `head`, from `q0` of the item's row) whose
  // bulk reductions this thread issued last, and queues it if that completes its count.
  template <typename Item>
  __device__ void count_arrival_of(const flash::BackwardParams& p, const Item& item, int head, int q0) {
    wait_bulk_groups<0>();          // the step's sums are added in L2
    fence_global_after_async();     // and ordered before the arrival's release
    if (q0 >= item.extent) return;  // no position of the row: nothing to finish
    const int position = item.row_begin + q0;
    const int arrivals = count_arrival(p.dq_arrivals + std::int64_t(position) * p.heads + head) + 1;
    if (arrivals == key_tiles_visited(p.layout, TileShape{kRows, kCols}, item.row, q0 / kRows).count())
      push({head, position, min(kStepQueries, item.extent - q0)});
  }
  // Tells the finishers that no tile follows.
  __device__ void close() { push({0, 0, 0}); }

 private:
  __device__ void push(const FinishedTile& tile) {
    s_.finish_ring().wait_empty(write_);
    s_.finished(write_.stage()) = tile;
    barrier_arrive(s_.finish_ring().full_barrier(write_));  // releases the entry to the finishers
    write_.advance();
  }
  const BackwardShared<D>& s_;
  PipelineState<SpecializedBackwardLayout<D>::finish_slots> write_;
};

// The finishers: each queued tile's sums, read through L2 (the other SMs' additions are
// there, and this SM's L1 holds none of them), scaled and stored in the dtype; a few
// 16-byte loads in flight per thread, as many as the producer's registers hold.
template <typename T, int D>
__device__ void finish_query_gradients(const flash::BackwardParams& p, const BackwardShared<D>& s, int thread) {
  constexpr int in_flight = 4, per_row = D / 4;  // 16-byte chunks of a row
  PipelineState<SpecializedBackwardLayout<D>::finish_slots> read;
  for (;; read.advance()) {
    s.finish_ring().wait_full(read);
    const FinishedTile tile = s.finished(read.stage());
    s.finish_ring().release(read);
    if (tile.rows == 0) return;
    const std::int64_t first = (std::int64_t(tile.position) * p.heads + tile.head) * D,
                       stride = std::int64_t(p.heads) * D;
    const int chunks = tile.rows * per_row;
#pragma unroll 1
    for (int c0 = 0; c0 < chunks; c0 += in_flight * kFinisherThreads) {
      float4 sums[in_flight];
#pragma unroll
      for (int i = 0; i < in_flight; ++i) {
        const int c = c0 + i * kFinisherThreads + thread;
        if (c < chunks)
          sums[i] = __ldcg(reinterpret_cast<const float4*>(p.dq_accum + first + (c / per_row) * stride) + c % per_row);
      }
#pragma unroll
      for (int i = 0; i < in_flight; ++i) {
        const int c = c0 + i * kFinisherThreads + thread;
        if (c >= chunks) continue;
        uint2 packed;
        T* const out = reinterpret_cast<T*>(&packed);
        out[0] = T(sums[i].x * p.scale);
        out[1] = T(sums[i].y * p.scale);
        out[2] = T(sums[i].z * p.scale);
        out[3] = T(sums[i].w * p.scale);
        reinterpret_cast<uint2*>(static_cast<T*>(p.dq) + first + (c / per_row) * stride)[c % per_row] = packed;
      }
    }
  }
}

}  // namespace attnlab::wgmma_sm90
