#pragma once
// The forward's consumers (warpgroups 1 and 2): each owns 64 of the tile's 128 query
// rows and runs the math on the same K/V stages as the other:
//   S = Q·Kᵀ (wgmma, both from shared memory) -> mask -> online softmax
//   (registers) -> O += P·V (wgmma, P from registers).
// S, P and O are wgmma accumulators of 64 x N: warp w of the warpgroup holds rows
// 16w..16w+15, each thread's elements in kernels/common/accumulator.cuh's layout.
#include <cstdint>
#include <type_traits>

#include "kernels/common/accumulator.cuh"
#include "kernels/common/counters.cuh"
#include "kernels/common/mask.cuh"
#include "kernels/common/softmax.cuh"
#include "kernels/wgmma_sm90/barriers.cuh"
#include "kernels/wgmma_sm90/epilogue.cuh"
#include "kernels/wgmma_sm90/forward_params.cuh"
#include "kernels/wgmma_sm90/pipeline.cuh"
#include "kernels/wgmma_sm90/ptx.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

using Scores = float[kCols / 2];  // S or P of the warpgroup's rows against one key tile
template <int D>
using Output = float[D / 2];  // the warpgroup's O accumulator
using ProbabilityFragments = std::uint32_t[kCols / 16][4];

// Starts s = Q·Kᵀ: D/16 wgmmas of 16 elements along d, each reading its slice of a
// 128-byte row; one commit group. The caller issues wgmma_fence first and waits.
template <typename T, int D>
__device__ __forceinline__ void start_scores_qk(Scores& s, const unsigned char* q_rows, const unsigned char* k_tile) {
  constexpr int block = SharedLayout<D>::block_bytes;
  const SharedTile q = shared_tile(q_rows), k = shared_tile(k_tile);
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int offset = (kk / 4) * block + (kk % 4) * 32;
    wgmma_64xn_shared<std::is_same_v<T, __nv_bfloat16>, kCols>(s, q.descriptor(offset, 16), k.descriptor(offset, 16),
                                                               kk > 0);
  }
  wgmma_commit();
}

// Starts O += P·V: 8 wgmmas of 16 keys; V's rows are keys, read transposed (d
// contiguous), its two 64-wide d blocks one tile block apart; one commit group.
template <typename T, int D>
__device__ __forceinline__ void start_accumulate_pv(Output<D>& o, const ProbabilityFragments& pf,
                                                    const unsigned char* v_tile) {
  constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
  const SharedTile v = shared_tile(v_tile);
#pragma unroll
  for (int kk = 0; kk < kCols / 16; ++kk)
    wgmma_64xn_registers<bf16, D>(o, pf[kk], v.descriptor(kk * 16 * 128, SharedLayout<D>::block_bytes));
  wgmma_commit();
}

// One consumer warpgroup. Per item: wait for Q; per key tile j, on its turn, S_j = Q·K_jᵀ and
// O += P_{j-1}·V_{j-1} are issued together, and the softmax of S_j (the exp2s)
// runs while the tensor cores still add P_{j-1}·V_{j-1} into O; only then is O
// rescaled and P_j packed (FlashAttention-3's overlap inside a warpgroup). Each
// K and V stage is released as soon as its wgmma has read it. Then the epilogue.
// With `counting`, it also counts tiles, cells and the scores its mask leaves finite; with
// `fold`, the epilogue folds O into running sums.
template <typename T, int D, ForwardFeatures F, bool counting, bool fold>
__device__ void consume(const Params& params, const Shared<D, F>& s, int consumer) {
  using L = SharedLayout<D, F>;
  const flash::Params& p = params.flash;
  const LayoutView& lv = p.layout;
  constexpr TileShape tile{kRows, kCols};
  const int thread = threadIdx.x - kWarpgroup * (1 + consumer);  // 0..127 in the warpgroup
  const int lane = thread % 32;
  const int first_row = 64 * consumer + 16 * (thread / 32) + lane / 4;
  const bool tile_counter = consumer == 0 && thread == 0;  // counts the CTA's tiles and cells
  CellCounts counted;
  long long visited = 0, finite = 0;
  // The two consumers take turns to issue their wgmmas (FlashAttention-3's scheduler
  // barrier), so one's matrix products run while the other's softmax does: consumer c
  // waits for its turn on its own turn barrier and hands it over on the other's. Both issue
  // at the same points (one per key tile, one for an item's last P·V), so the turns
  // stay in step; consumer 0 starts with its turn. Without F.consumer_turns both issue when ready.
  const auto wait_turn = [&] {
    if constexpr (F.consumer_turns) sync_threads_of(turn_barrier(consumer), kConsumerThreads);
  };
  const auto pass_turn = [&] {
    if constexpr (F.consumer_turns) arrive_threads_of(turn_barrier(1 - consumer), kConsumerThreads);
  };
  if (F.consumer_turns && consumer == 0) arrive_threads_of(turn_barrier(0), kConsumerThreads);

  PipelineState<L::q_buffers> q_read;
  PipelineState<L::stages> kv_read;  // the item's first K/V tile: K_j is kv_read.ahead(j), V_{j-1} beside it
  for (;; q_read.advance()) {
    const int buffer = q_read.stage();
    s.q_ring().wait_full(q_read);
    if (s.item_slot(buffer)->done) break;
    const Item item = s.item_slot(buffer)->item;
    KeyRange keys[2];  // the keys each of this thread's two query rows attends
#pragma unroll
    for (int i = 0; i < 2; ++i) keys[i] = attended_keys(lv, item.bounds, item.q0 + first_row + 8 * i);
    Output<D> o = {};
    float row_max[2] = {-INFINITY, -INFINITY};  // raw scores
    float row_sum[2] = {0.f, 0.f};              // this thread's part of the row's sum
    float rescale[2];
    Scores scores = {};
    ProbabilityFragments pf;
    const int visits = item.key_tiles.count();
    // S_j is ready: release K_j, mask, count, softmax.
    const auto scores_to_probabilities = [&](int step) {
      s.k_ring().release(kv_read.ahead(step));
      const int k0 = (item.key_tiles.first + step) * kCols;
      if (tile_needs_mask(lv, item.bounds, item.q0, k0, tile)) flash::mask_scores(scores, keys, k0, lane);
      if constexpr (counting) {
        finite += flash::finite_scores(scores);
        if (tile_counter) {
          counted += count_tile(lv, item.work.row, item.q0, k0, tile);
          ++visited;
        }
      }
      flash::online_softmax(scores, row_max, row_sum, rescale, p.scale_log2);
    };

    unsigned char* const q_tile = s.q(buffer);
    const unsigned char* q_rows = q_tile + 64 * consumer * 128;  // the warpgroup's 64 rows of each Q block
    for (int step = 0; step < visits; ++step) {
      const auto k_use = kv_read.ahead(step), v_use = kv_read.ahead(step - 1);
      s.k_ring().wait_full(k_use);
      wait_turn();
      pin_registers(scores);
      wgmma_fence();
      start_scores_qk<T, D>(scores, q_rows, s.k(k_use.stage()));
      if (step > 0) {
        s.v_ring().wait_full(v_use);
        start_accumulate_pv<T, D>(o, pf, s.v(v_use.stage()));
        pass_turn();
        // S_j is done; P_{j-1}·V_{j-1} may still run (without F.overlap_softmax: it is done too).
        wgmma_wait<F.overlap_softmax ? 1 : 0>();
      } else {
        pass_turn();
        wgmma_wait<0>();
      }
      pin_registers(scores);
      scores_to_probabilities(step);
      if (step > 0) {
        wgmma_wait<0>();
        pin_registers(o);
        pin_registers(pf);  // P_{j-1} stays where the wgmma read it until here
        s.v_ring().release(v_use);
        flash::rescale_output(o, rescale);
      }
      flash::accumulator_as_a<T>(pf, scores);
    }
    if (visits > 0) {  // the last tile's P·V
      const auto v_use = kv_read.ahead(visits - 1);
      s.v_ring().wait_full(v_use);
      wait_turn();
      pin_registers(o);
      wgmma_fence();
      start_accumulate_pv<T, D>(o, pf, s.v(v_use.stage()));
      pass_turn();
      wgmma_wait<0>();
      pin_registers(o);
      s.v_ring().release(v_use);
    }
    kv_read.advance(visits);
    store_output<T, D, fold>(p, item, o, row_max, row_sum, q_tile, consumer, thread);
    s.q_ring().release(q_read);  // the item after next (with one buffer: the next) may load its Q here
  }
  if constexpr (counting) {
    flash::add_finite_scores(p.counts, finite);
    if (tile_counter) flash::add_counts(p.counts, counted, visited);
  }
}

}  // namespace attnlab::wgmma_sm90
