#pragma once
// The warp-specialized backward's dQ finish (the `finish_dq` feature): every key tile a
// query tile visits adds its dQ to the step's fp32 sums, and the last one to do so
// converts them to the dtype, so no pass after the kernel reads the whole accumulator
// back from HBM. Arrivals are counted per step (kernels/common/query_gradient_arrivals.hpp):
//  - the dQ writer (backward_producer.cuh) queues each step once its bulk reductions have
//    added it, waiting kQueueLag steps late, when that wait is over; the CTA's last steps
//    it marks late instead (their additions still under way), so that the CTA ends without
//    waiting for L2: the conversion pass after the kernel converts those steps only;
//  - the finishers (warps 2 and 3, queue entries taken in turn) count each queued step's
//    arrival; the arrival that completes the count (key_tiles_visited of the step's query
//    tile: each visiting key tile adds both of the tile's steps once) reads the sums from
//    L2, where the other SMs' reductions were added, and stores dQ = scale · sums in the
//    dtype. The count's round trip to L2 stays off the writer, which hands the dQ staging
//    back to the consumers every step.
// Only the row's own positions are finished: a step that runs past the row's end adds
// zeros to the next row's sums, which the next row's own steps finish.
#include <cstdint>

#include "kernels/common/query_gradient_arrivals.hpp"
#include "kernels/common/scaled_store.cuh"
#include "kernels/wgmma_sm90/backward_params.cuh"
#include "kernels/wgmma_sm90/backward_shared_memory.cuh"
#include "kernels/wgmma_sm90/ptx.cuh"

namespace attnlab::wgmma_sm90 {

inline constexpr int kFinisherWarps = 2;  // warps 2 and 3 of the producer warpgroup

// Sets kLateArrival at each of a step's positions (its sums then go to the pass). A warp.
__device__ __forceinline__ void mark_late(const flash::BackwardParams& p, const AddedStep& step, int lane) {
  for (int i = lane; i < step.rows; i += 32)
    or_into(p.dq_arrivals + std::int64_t(step.position + i) * p.heads + step.head, kLateArrival);
}

// The writer's end of the queue. Lane 0 of the writer.
template <int D>
class FinishQueue {
 public:
  explicit __device__ FinishQueue(const BackwardShared<D>& s) : s_(s) {}

  // Queues a step (query head `head`, from `q0` of the item's row) whose bulk reductions
  // this thread has waited for (wait_bulk_groups).
  template <typename Item>
  __device__ void added(const flash::BackwardParams& p, const Item& item, int head, int q0) {
    fence_global_after_async();     // the step's sums, added in L2, ordered before the queue's release
    if (q0 >= item.extent) return;  // no position of the row: nothing to finish
    push({head, item.row_begin + q0, min(kStepQueries, item.extent - q0),
          key_tiles_visited(p.layout, TileShape{kRows, kCols}, item.row, q0 / kRows).count()});
  }
  // Marks a step (as `added`) whose bulk reductions may still be under way. Every lane of
  // the writer.
  template <typename Item>
  __device__ void added_late(const flash::BackwardParams& p, const Item& item, int head, int q0, int lane) {
    if (q0 < item.extent) mark_late(p, {head, item.row_begin + q0, min(kStepQueries, item.extent - q0), 0}, lane);
  }
  // Tells each finisher that no step follows.
  __device__ void close() {
    for (int w = 0; w < kFinisherWarps; ++w) push({0, 0, 0, 0});
  }

 private:
  __device__ void push(const AddedStep& step) {
    s_.finish_ring().wait_empty(write_);
    s_.added(write_.stage()) = step;
    barrier_arrive(s_.finish_ring().full_barrier(write_));  // releases the entry to its finisher
    write_.advance();
  }
  const BackwardShared<D>& s_;
  PipelineState<SpecializedBackwardLayout<D>::finish_slots> write_;
};

// A finisher warp (`finisher` 0 or 1: queue entries finisher, finisher + 2, ...): counts
// each step's arrival; where it completes the count, reads the step's sums through L2
// (this SM's L1 holds none of them), scales them and stores them in the dtype, as many
// 16-byte loads in flight per lane as the producer's registers hold.
template <typename T, int D>
__device__ void finish_query_gradients(const flash::BackwardParams& p, const BackwardShared<D>& s, int finisher,
                                       int lane) {
  constexpr int in_flight = 4, per_row = D / 4;  // 16-byte chunks of a row
  PipelineState<SpecializedBackwardLayout<D>::finish_slots> read;
  for (read.advance(finisher);; read.advance(kFinisherWarps)) {
    s.finish_ring().wait_full(read);
    const AddedStep step = s.added(read.stage());
    s.finish_ring().release(read);
    if (step.rows == 0) return;
    // Once the CTA's steps are done, what is still queued goes to the pass, so that the
    // CTA ends without waiting for the counts' round trips or a conversion.
    if (s.closing()) {
      mark_late(p, step, lane);
      continue;
    }
    const std::int64_t first = (std::int64_t(step.position) * p.heads + step.head) * D;
    int arrivals = 0;
    if (lane == 0) arrivals = count_arrival(p.dq_arrivals + first / D) + 1;  // acquires the other tiles' sums
    // A late arrival among the others sets a bit above the count: then the pass converts.
    if (__shfl_sync(0xffffffffu, arrivals, 0) != step.key_tiles) continue;
    const std::int64_t stride = std::int64_t(p.heads) * D;
    const int chunks = step.rows * per_row;
#pragma unroll 1
    for (int c0 = 0; c0 < chunks; c0 += in_flight * 32) {
      if (c0 > 0 && s.closing()) {  // the pass converts the whole step again
        mark_late(p, step, lane);
        break;
      }
      float4 sums[in_flight];
#pragma unroll
      for (int i = 0; i < in_flight; ++i) {
        const int c = c0 + i * 32 + lane;
        if (c < chunks)
          sums[i] = __ldcg(reinterpret_cast<const float4*>(p.dq_accum + first + (c / per_row) * stride) + c % per_row);
      }
#pragma unroll
      for (int i = 0; i < in_flight; ++i) {
        const int c = c0 + i * 32 + lane;
        if (c >= chunks) continue;
        flash::store_scaled(static_cast<T*>(p.dq) + first + (c / per_row) * stride + (c % per_row) * 4, sums[i],
                            p.scale);
      }
    }
  }
}

}  // namespace attnlab::wgmma_sm90
