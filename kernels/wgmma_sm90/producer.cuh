#pragma once
// The forward's producer (warpgroup 0; one warp works): it takes the CTA's work
// items from the scheduler and copies each item's Q tile and a ring of K/V stages
// with the tensor-memory copy engine (TMA), each stage guarded by a "full" mbarrier
// (the bytes landed) and an "empty" one (both consumers done): the rings of
// pipeline.cuh. Each item takes the next Q buffer (and its ItemSlot), each K/V tile the
// next stage, in the order the consumers read them.
#include <cstdint>

#include "kernels/common/scheduler.cuh"
#include "kernels/wgmma_sm90/forward_params.cuh"
#include "kernels/wgmma_sm90/pipeline.cuh"
#include "kernels/wgmma_sm90/ptx.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

// Copies a V tile whose keys run past the row's valid tokens, zero-filling those
// rows: TMA would read whatever lies there (the next document, or padding), and
// although P is 0 for them, 0 · NaN would still poison O. One warp, 16 bytes per copy.
template <typename T, int D>
__device__ __forceinline__ void copy_tile_zero_filled(unsigned char* tile, const T* first_row, std::int64_t stride,
                                                      int rows_present, int lane) {
  constexpr int chunks = D / 8;
#pragma unroll 2
  for (int i = lane; i < kRows * chunks; i += 32) {
    const int row = i / chunks, chunk = i % chunks;
    uint4 value = make_uint4(0, 0, 0, 0);
    if (row < rows_present) value = *reinterpret_cast<const uint4*>(first_row + row * stride + chunk * 8);
    *reinterpret_cast<uint4*>(tile + tile_offset(row, chunk)) = value;
  }
  fence_shared_for_async();  // wgmma reads these next
}

// Lane 0 issues every TMA copy; the whole warp fills V tiles that cross the row's end.
template <typename T, int D, ForwardFeatures F, typename Scheduler>
__device__ void produce(const Params& p, const Shared<D, F>& s, const Scheduler& scheduler) {
  using L = SharedLayout<D, F>;
  const int lane = threadIdx.x % 32;
  if (lane == 0) {
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
  }
  PipelineState<L::q_buffers> q_write;
  PipelineState<L::stages> kv_write;  // K and V tiles go to the same stage
  flash::WorkTile work = scheduler.get_initial_work();
  for (;; q_write.advance()) {
    const bool done = !scheduler.is_valid(work);
    const int buffer = q_write.stage();
    Item item;
    if (!done) item = Item(p.flash, work.index);
    if (lane == 0) {
      // The Q buffer is free once both consumers have stored the output of the item before last
      // (with one buffer: of the last item).
      s.q_ring().wait_empty(q_write);
      ItemSlot<Item>& slot = *s.item_slot(buffer);  // published by the arrival below
      slot.item = item;
      slot.done = done;
      if (done) barrier_arrive(s.q_ring().full_barrier(q_write));
    }
    if (done) break;
    flash::WorkTile next{0};
    if (lane == 0) {
      barrier_arrive_expect_bytes(s.q_ring().full_barrier(q_write), L::tile_bytes);
      for (int b = 0; b < D / 64; ++b)
        copy_box(s.q(buffer) + b * L::block_bytes, &p.q_map, s.q_ring().full_barrier(q_write), b * 64, item.head,
                 item.query_begin + item.q0);
      next = scheduler.get_next_work(work);  // a counter's latency hides behind this item's loads
    }
    for (int kt = item.key_tiles.first; kt < item.key_tiles.end; ++kt, kv_write.advance()) {
      const int stage = kv_write.stage();
      const int k0 = kt * kCols;
      if (lane == 0) {
        s.k_ring().wait_empty(kv_write);
        barrier_arrive_expect_bytes(s.k_ring().full_barrier(kv_write), L::tile_bytes);
        for (int b = 0; b < D / 64; ++b)
          copy_box(s.k(stage) + b * L::block_bytes, &p.k_map, s.k_ring().full_barrier(kv_write), b * 64, item.kv_head,
                   item.row_begin + k0);
      }
      // Keys past the row's valid end are masked in S; for K, nothing more is needed.
      s.v_ring().wait_empty(kv_write);
      if (k0 + kCols <= item.bounds.keys) {
        if (lane == 0) {
          barrier_arrive_expect_bytes(s.v_ring().full_barrier(kv_write), L::tile_bytes);
          for (int b = 0; b < D / 64; ++b)
            copy_box(s.v(stage) + b * L::block_bytes, &p.v_map, s.v_ring().full_barrier(kv_write), b * 64, item.kv_head,
                     item.row_begin + k0);
        }
      } else {
        const std::int64_t stride = std::int64_t(p.flash.kv_heads) * D;
        const T* first = static_cast<const T*>(p.flash.v) + (item.row_begin + k0) * stride + item.kv_head * D;
        copy_tile_zero_filled<T, D>(s.v(stage), first, stride, item.bounds.keys - k0, lane);
        __syncwarp();
        if (lane == 0) barrier_arrive(s.v_ring().full_barrier(kv_write));
      }
    }
    work.index = __shfl_sync(0xffffffffu, next.index, 0);
  }
}

}  // namespace attnlab::wgmma_sm90
