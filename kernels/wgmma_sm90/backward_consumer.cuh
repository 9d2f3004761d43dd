#pragma once
// The warp-specialized backward's consumers (warpgroups 1 and 2), 64 of the key tile's
// keys each, dK and dV in registers: item by item (from the item slots, published with
// each item's K and V), per step of the ring, the five products of backward_steps.cuh.
// They meet once a step, when both halves of dSᵀ are staged for dQ's product; each hands
// its dQ to the writer warp through the staging (dq_full, dq_empty); each releases the
// step's stage when its products are done, and the item's K and V after its last step.
// At an item's end dK and dV leave through shared memory in whole lines: persistent, through
// the dSᵀ stages and dQ's staging while the loader fills the next item's steps and K and V;
// with one item a CTA, through the Q and dO stages.
#include "kernels/common/mask.cuh"
#include "kernels/wgmma_sm90/backward_params.cuh"
#include "kernels/wgmma_sm90/backward_shared_memory.cuh"
#include "kernels/wgmma_sm90/barriers.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

template <typename T, int D, bool persistent, bool first_store, bool counting>
__device__ void consume_items(const BackwardParams& params, const BackwardShared<T, D>& s, int consumer) {
  const flash::BackwardParams& p = params.flash;
  const LayoutView& lv = p.layout;
  const int thread = threadIdx.x % kWarpgroup, warp = thread / 32, lane = thread % 32;
  StepCounts counts;
  const int first_key = kKeysPerWarpgroup * consumer + 16 * warp + lane / 4;  // the thread's first key in the tile
  const SharedTile k_tile = shared_tile(s.k());
  const SharedTile k_rows = k_tile + kKeysPerWarpgroup * consumer * 128;  // the consumer's 64 keys
  const SharedTile v_rows = shared_tile(s.v()) + kKeysPerWarpgroup * consumer * 128;
  const SharedTile k_block = k_tile + consumer * kKeyBlockBytes;  // K's columns of the consumer's dQ
  const bool stages_dq = D == 128 || consumer == 0;               // at head dim 64 consumer 0 alone takes dQ
  PipelineState<SpecializedBackwardLayout<T, D>::stages> read;
  for (int n = 0;; ++n) {
    barrier_wait(s.key_barrier(), n % 2);  // item n published, its K and V landed
    if (persistent && s.item_slot(n).done) break;
    const KeyItem<T, D> item = s.item_slot(n).item;
    KeyGradient<D> dk = {}, dv = {};
    StepCursor cursor(item);
    const int steps = step_count(item);
    for (int step = 0; step < steps; ++step, read.advance()) {
      const int stage = read.stage();
      const SharedTile q_tile = shared_tile(s.q(stage)), do_tile = shared_tile(s.d_o(stage));
      unsigned char* const ds_tile = s.ds(stage);
      const QueryInfo& info = s.info(stage);
      const int q0 = cursor.first_query;
      s.step_ring().wait_full(read);

      KeyScores scores, ds;
      wgmma_fence();
      start_key_scores<T, D>(scores, k_rows, q_tile);                     // Sᵀ = K·Qᵀ
      start_score_gradient_terms<T, D>(ds, v_rows, do_tile, info, lane);  // dPᵀ − Δ
      wgmma_wait<1>();
      pin_registers(scores);
      const bool masked = tile_needs_mask(lv, item.bounds(), q0, item.k0, TileShape{kStepQueries, kCols});
      if constexpr (counting)
        counts.add(scores, info, lv, item, q0, step, first_key, masked, consumer == 0 && thread == 0, lane);
      KeyFragments pf, dsf;
      key_step_operands<T>(scores, ds, pf, dsf, info, first_key, masked, p.scale_log2, ds_tile, lane);
      wgmma_fence();
      start_accumulate_keys<T, D>(dv, pf, do_tile);                         // dV += Pᵀ·dO
      if constexpr (D == 64) start_accumulate_keys<T, D>(dk, dsf, q_tile);  // dK += dSᵀ·Q
      fence_shared_for_async();                                             // the dQ products read the staged dSᵀ
      sync_threads_of(BackwardBarrier::consumers, kConsumerThreads);        // both consumers' rows of dSᵀ staged

      if (stages_dq) {
        // dQ's product, then (head dim 128) dK's, so the staging and the bulk reductions
        // go out while the tensor cores take dK. At head dim 64 dK went with dV: a product
        // issued by one warpgroup only, before another, is serialized by ptxas (C7520).
        QueryGradient dq;
        wgmma_fence();
        start_query_gradient<T, D>(dq, shared_tile(ds_tile), k_block);
        if constexpr (D == 128) {
          start_accumulate_keys<T, D>(dk, dsf, q_tile);
          wgmma_wait<1>();
        } else {
          wgmma_wait<0>();
        }
        pin_registers(dq);
        sync_threads_of(dq_empty_barrier(consumer), kQueryGradientHandoffThreads);  // the writer has read the last
        // Boxes where the step's queries are all the row's; else rows, each copied by itself
        // (the writer's first store must not reach the next row).
        if (first_store && queries_in_row(item, q0) < kStepQueries)
          stage_query_gradient_rows(s.dq(), dq, consumer, warp, lane);
        else
          stage_query_gradient(s.dq(), dq, consumer, warp, lane);
        fence_shared_for_async();  // the bulk reductions read what these stores wrote
        arrive_threads_of(dq_full_barrier(consumer), kQueryGradientHandoffThreads);
      }
      wgmma_wait<0>();
      pin_registers(dv);
      pin_registers(dk);
      pin_registers(pf);
      pin_registers(dsf);
      s.step_ring().release(read);  // this thread's products have read the stage
      cursor.advance(item);
    }
    if constexpr (persistent) {
      // The writer has read the item's last staged dQ: dV may be staged there.
      if (stages_dq) sync_threads_of(dq_empty_barrier(consumer), kQueryGradientHandoffThreads);
      barrier_arrive(s.key_empty_barrier());  // this thread's products are done with K and V
    }

    // dK and dV staged once both consumers' products have read what they are staged in:
    // persistent, the dSᵀ stages and dQ's staging (the Q and dO stages take the next item's
    // steps); else the Q and dO stages.
    sync_threads_of(BackwardBarrier::consumers, kConsumerThreads);
    store_key_gradients<T, D>(p, item, dk, dv, persistent ? s.dk_staging() : s.q(0),
                              persistent ? s.dv_staging() : s.d_o(0), kKeysPerWarpgroup * consumer, first_key, thread,
                              lane, [] { sync_threads_of(BackwardBarrier::consumers, kConsumerThreads); });
    if constexpr (!persistent) break;
    sync_threads_of(BackwardBarrier::consumers, kConsumerThreads);  // every row stored: the next item stages there
  }
  if constexpr (counting) counts.flush(p.counts, consumer == 0 && thread == 0);
}

}  // namespace attnlab::wgmma_sm90
