#pragma once
// The forward's producer (warpgroup 0; one warp works): it takes the CTA's work
// items from the scheduler and copies each item's Q tile and a ring of K/V stages
// with the tensor-memory copy engine (TMA), each stage guarded by a "full" mbarrier
// (the bytes landed) and an "empty" one (both consumers done). The CTA's item
// number i uses Q buffer i % q_buffers (and its ItemSlot) for the (i / q_buffers)th
// time; K/V tile number t of a CTA sits in stage t % stages, in that stage's use
// t / stages. A barrier's phase flips at each use, so the parity to wait for is that
// use count's lowest bit (with one buffer or stage: every use flips it).
#include <cstdint>

#include "kernels/wgmma_sm90/forward_params.cuh"
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
__device__ void produce(const Params& p, const Shared<D, F>& s, const Scheduler& scheduler, int total_items) {
  using L = SharedLayout<D, F>;
  const int lane = threadIdx.x % 32;
  if (lane == 0) {
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
  }
  int tile_count = 0;
  int index = scheduler.get_initial_work();
  for (int item_count = 0;; ++item_count) {
    const bool done = index >= total_items;
    const int buffer = item_count % L::q_buffers;
    Item item;
    if (!done) item = Item(p.flash, index);
    if (lane == 0) {
      // The Q buffer is free once both consumers have stored the output of the item before last
      // (with one buffer: of the last item).
      barrier_wait(s.q_empty(buffer), ((item_count / L::q_buffers) & 1) ^ 1);
      ItemSlot& slot = *s.item_slot(buffer);  // published by the arrival below
      slot.item = item;
      slot.done = done;
      if (done) barrier_arrive(s.q_full(buffer));
    }
    if (done) break;
    int next = 0;
    if (lane == 0) {
      barrier_arrive_expect_bytes(s.q_full(buffer), L::tile_bytes);
      for (int b = 0; b < D / 64; ++b)
        copy_box(s.q(buffer) + b * L::block_bytes, &p.q_map, s.q_full(buffer), b * 64, item.head,
                 item.row_begin + item.q0);
      next = scheduler.get_next_work(index);  // a counter's latency hides behind this item's loads
    }
    for (int kt = item.key_tiles.first; kt < item.key_tiles.end; ++kt, ++tile_count) {
      const int stage = tile_count % L::stages;
      const int parity = ((tile_count / L::stages) & 1) ^ 1;  // the previous use of the stage
      const int k0 = kt * kCols;
      if (lane == 0) {
        barrier_wait(s.k_empty(stage), parity);
        barrier_arrive_expect_bytes(s.k_full(stage), L::tile_bytes);
        for (int b = 0; b < D / 64; ++b)
          copy_box(s.k(stage) + b * L::block_bytes, &p.k_map, s.k_full(stage), b * 64, item.kv_head,
                   item.row_begin + k0);
      }
      // Keys past the row's valid end are masked in S; for K, nothing more is needed.
      barrier_wait(s.v_empty(stage), parity);
      if (k0 + kCols <= item.valid) {
        if (lane == 0) {
          barrier_arrive_expect_bytes(s.v_full(stage), L::tile_bytes);
          for (int b = 0; b < D / 64; ++b)
            copy_box(s.v(stage) + b * L::block_bytes, &p.v_map, s.v_full(stage), b * 64, item.kv_head,
                     item.row_begin + k0);
        }
      } else {
        const std::int64_t stride = std::int64_t(p.flash.kv_heads) * D;
        const T* first = static_cast<const T*>(p.flash.v) + (item.row_begin + k0) * stride + item.kv_head * D;
        copy_tile_zero_filled<T, D>(s.v(stage), first, stride, item.valid - k0, lane);
        __syncwarp();
        if (lane == 0) barrier_arrive(s.v_full(stage));
      }
    }
    index = __shfl_sync(0xffffffffu, next, 0);
  }
}

}  // namespace attnlab::wgmma_sm90
