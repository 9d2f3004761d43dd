#pragma once
// The Hopper backward's first kernel (wgmma-sm90, sm_90a), the backward ladder's rungs 1
// and 2 (the shipped backward, backward_specialized_kernel.cuh, gives its copies to a
// producer warpgroup), beside the teaching backward (kernels/mma_sm80/backward_kernel.cuh), whose
// algorithm and outer structure it keeps: a CTA owns one key tile of one row and one
// KV head, keeps K_j and V_j in shared memory and dK_j, dV_j in registers, and walks
// every (query head of the group, query tile visiting key tile j), with the same work
// item, QueryInfo, mask and softmax (kernels/common/). What changes:
//  - the tile is the wgmma forward's, 128 queries x 128 keys (its work list, its
//    counts); a CTA is two warpgroups, each owning 64 of the 128 keys;
//  - a visited query tile is taken in two steps of 64 queries, padding's too (as
//    the forward and the counts: the padded layout's waste is computed);
//  - the five products are wgmmas. Per step, for a warpgroup's 64 keys:
//      Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ      (both operands from shared memory)
//      Pᵀ = exp(S·scale − LSE) masked, dSᵀ = Pᵀ∘(dPᵀ − Δ)   (registers)
//      dV += Pᵀ·dO, dK += dSᵀ·Q    (Pᵀ, dSᵀ from registers; dO, Q read transposed)
//    and dQ = dS·K over all 128 keys (dSᵀ staged in shared memory and read
//    transposed, K read transposed), each warpgroup 64 of the head dim's columns
//    (at head dim 64, warpgroup 0 alone);
//  - dQ, contracted over 128 keys instead of the teaching backward's 64, goes into
//    shared memory (the 128-byte swizzle, boxes of 32 floats), and at the next step's
//    barrier one thread per warpgroup adds it to the fp32 accumulator by TMA bulk
//    reductions: a handful of instructions where per-thread 8-byte reductions cost
//    16 a thread a step and most of the kernel's stalls (the ladder's first rung adds
//    dQ that way, from registers). At head dim 128, dQ's product goes before dK's, so
//    its staging overlaps dK;
//  - dK and dV leave through shared memory, 16 bytes a thread in whole lines,
//    where a warp store from the accumulators' layout touches 8 rows (which cost
//    most where CTAs are short: 512-token documents).
// Every tile is copied with cp.async into wgmma's 128-byte swizzle, zeros past the
// row's valid tokens, so padding and the next document never reach a product.
#include <cstdint>
#include <type_traits>

#include "kernels/common/accumulator.cuh"
#include "kernels/common/copy_async.cuh"
#include "kernels/common/mask.cuh"
#include "kernels/common/query_info.cuh"
#include "kernels/common/scheduler.cuh"
#include "kernels/common/softmax.cuh"
#include "kernels/common/work_item.cuh"
#include "kernels/wgmma_sm90/backward_steps.cuh"
#include "kernels/wgmma_sm90/features.hpp"
#include "kernels/wgmma_sm90/ptx.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

// Shared memory: K and V of the key tile (128 rows), two buffers each of Q and dO
// (64 rows: the next step's land while this one computes), dSᵀ (128 keys x 64
// queries, one block), with bulk reductions dQ (64 queries x D floats), two
// QueryInfo. Tiles in wgmma's 128-byte swizzle: D/64 blocks of [rows][64 elements],
// dQ D/32 boxes of [64][32 floats], each 1024-byte aligned.
template <int D, bool dq_bulk_reduce>
struct BackwardLayout {
  static constexpr int key_tile_bytes = kCols * D * 2;
  static constexpr int query_tile_bytes = kStepQueries * D * 2;
  static constexpr int k = 0;
  static constexpr int v = k + key_tile_bytes;
  static constexpr int q = v + key_tile_bytes;
  static constexpr int d_o = q + 2 * query_tile_bytes;
  static constexpr int ds = d_o + 2 * query_tile_bytes;
  static constexpr int dq = ds + kCols * kStepQueries * 2;
  static constexpr int infos = dq + (dq_bulk_reduce ? D / kQueryGradientBoxFloats * kQueryGradientBoxBytes : 0);
  static constexpr int bytes = infos + 2 * int(sizeof(QueryInfo)) + 1024;  // + room to align the base to 1024
  // At the end the two Q buffers hold dK's 128 rows on their way out, the dO buffers dV's.
  static_assert(2 * query_tile_bytes == key_tile_bytes && d_o - q == key_tile_bytes);
  static_assert(dq % 1024 == 0 && kQueryGradientBoxBytes % 1024 == 0);
};

// Starts copying `rows` rows of one head (row stride `stride` elements) into a
// tile in wgmma's swizzle; rows at or past `rows_present` get zeros. All threads.
template <typename T, int D, int rows>
__device__ __forceinline__ void copy_rows_async(unsigned char* tile, const T* first_row, std::int64_t stride,
                                                int rows_present) {
  flash::copy_rows_async<T, D, rows, kBackwardThreads>(
      [tile](int row, int chunk) { return tile + tile_offset(row, chunk, rows); }, first_row, stride, rows_present);
}

// ---- the kernel -------------------------------------------------------------------------

// One CTA per (key tile, KV head), in the backward's work-list order (heaviest rows
// first, a row's most-visited key tiles first). The next step's Q, dO, LSE and Δ are
// copied while this step computes; with dq_bulk_reduce, the last step's dQ is added
// while this step computes. With `counting`, each executed step also counts its cells
// and the scores the mask leaves finite, and each tile's first step the tile.
template <typename T, int D, int features, bool counting>
__global__ void __launch_bounds__(kBackwardThreads, 1)
    backward(const __grid_constant__ BackwardParams params, const flash::OneCtaPerWork scheduler) {
  static_assert(D == 64 || D == 128);
  constexpr bool bulk = backward_features_of_key(features).dq_bulk_reduce;
  using L = BackwardLayout<D, bulk>;
  const flash::BackwardParams& p = params.flash;
  extern __shared__ unsigned char shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes: tiles start on a multiple of it.
  unsigned char* const base = shared_raw + ((1024 - shared_address(shared_raw) % 1024) % 1024);
  unsigned char* const k_tile = base + L::k;
  unsigned char* const v_tile = base + L::v;
  unsigned char* const ds_tile = base + L::ds;
  unsigned char* const dq_tile = base + L::dq;
  QueryInfo* const infos = reinterpret_cast<QueryInfo*>(base + L::infos);
  const LayoutView& lv = p.layout;
  const int warpgroup = warpgroup_index(), thread = threadIdx.x % kWarpgroup;
  const int warp = thread / 32, lane = thread % 32;

  const KeyItem<T, D> item(p, scheduler.get_initial_work().index);
  StepCounts counts;
  const int steps = step_count(item);
  const std::int64_t kv_stride = std::int64_t(p.kv_heads) * D;
  // Starts the copies of the step of query head `head` from query q0 into `buffer`.
  const auto start_step = [&](int head, int q0, int buffer) {
    const std::int64_t first = (std::int64_t(item.row_begin + q0) * p.heads + head) * D;
    const std::int64_t stride = std::int64_t(p.heads) * D;
    copy_rows_async<T, D, kStepQueries>(base + L::q + buffer * L::query_tile_bytes, static_cast<const T*>(p.q) + first,
                                        stride, item.valid - q0);
    copy_rows_async<T, D, kStepQueries>(base + L::d_o + buffer * L::query_tile_bytes,
                                        static_cast<const T*>(p.d_o) + first, stride, item.valid - q0);
    flash::start_query_info<kCols>(p, item.row_begin, item.bounds(), head, q0, item.k0, infos[buffer], threadIdx.x);
  };
  copy_rows_async<T, D, kCols>(k_tile, item.k, kv_stride, item.valid - item.k0);
  copy_rows_async<T, D, kCols>(v_tile, item.v, kv_stride, item.valid - item.k0);
  // The step whose copies start next, one ahead of the step computed.
  StepCursor ahead(item);
  int head = ahead.head, q0 = ahead.first_query;
  if (steps > 0) start_step(head, q0, 0);
  ahead.advance(item);
  flash::commit_copies();

  KeyGradient<D> dk = {}, dv = {};
  const int first_key = kKeysPerWarpgroup * warpgroup + 16 * warp + lane / 4;  // the thread's first key in the tile
  const SharedTile k_matrices = shared_tile(k_tile);                           // K as wgmma reads it
  const SharedTile k_rows = k_matrices + kKeysPerWarpgroup * warpgroup * 128;  // the warpgroup's 64 keys
  const SharedTile v_rows = shared_tile(v_tile) + kKeysPerWarpgroup * warpgroup * 128;
  // With bulk reductions, the thread that adds its warpgroup's staged dQ (warpgroup 0's
  // alone at head dim 64), and the step whose dQ is staged, if one is.
  const bool adds_dq = bulk && thread == 0 && (D == 128 || warpgroup == 0);
  int staged_head = -1, staged_position = 0;
  const auto add_staged_dq = [&] {
    if (adds_dq && staged_head >= 0)
      start_writing_query_gradient(&params.dq_map, dq_tile, warpgroup, staged_head, staged_position, false);
  };
  for (int step = 0; step < steps; ++step) {
    const int buffer = step & 1;
    flash::wait_copies<0>();   // this step's copies (and K, V) landed
    fence_shared_for_async();  // wgmma reads what cp.async wrote
    // One barrier a step: this step's tiles in place for every thread, and the last
    // step's buffers and dSᵀ read by every thread's products, so free to refill.
    __syncthreads();
    add_staged_dq();  // the last step's dQ, staged and fenced by every thread before the barrier
    const SharedTile q_tile = shared_tile(base + L::q + buffer * L::query_tile_bytes);
    const SharedTile do_tile = shared_tile(base + L::d_o + buffer * L::query_tile_bytes);
    const QueryInfo& info = infos[buffer];

    KeyScores s, ds;
    wgmma_fence();
    start_key_scores<T, D>(s, k_rows, q_tile);                          // Sᵀ = K·Qᵀ
    start_score_gradient_terms<T, D>(ds, v_rows, do_tile, info, lane);  // dPᵀ − Δ
    // The next step's copies are issued while the tensor cores start this step's
    // products, so they are not on the products' path; they land while it computes.
    const int next_head = ahead.head, next_q0 = ahead.first_query;
    if (step + 1 < steps) start_step(next_head, next_q0, buffer ^ 1);
    ahead.advance(item);
    flash::commit_copies();
    wgmma_wait<1>();
    pin_registers(s);
    const bool masked = tile_needs_mask(lv, item.bounds(), q0, item.k0, TileShape{kStepQueries, kCols});
    if constexpr (counting) counts.add(s, info, lv, item, q0, step, first_key, masked, threadIdx.x == 0, lane);
    KeyFragments pf, dsf;
    key_step_operands<T>(s, ds, pf, dsf, info, first_key, masked, p.scale_log2, ds_tile, lane);
    wgmma_fence();
    start_accumulate_keys<T, D>(dv, pf, do_tile);                         // dV += Pᵀ·dO
    if constexpr (D == 64) start_accumulate_keys<T, D>(dk, dsf, q_tile);  // dK += dSᵀ·Q

    // The staged dQ's reductions have read it before the barrier lets this step's overwrite it.
    if (adds_dq) wait_bulk_groups_read<0>();
    fence_shared_for_async();  // the dQ products read the staged dSᵀ
    __syncthreads();           // every warpgroup's rows of dSᵀ staged
    const auto add_dq = [&](const QueryGradient& dq) {
      if constexpr (bulk) {
        stage_query_gradient(dq_tile, dq, warpgroup, warp, lane);
        fence_shared_for_async();  // the bulk reductions read what these stores wrote
      } else {
        add_query_gradient(p.dq_accum + (std::int64_t(item.row_begin + q0) * p.heads + head) * D + 64 * warpgroup,
                           std::int64_t(p.heads) * D, item.valid - q0, dq, warp, lane);
      }
    };
    QueryGradient dq;
    if constexpr (D == 128) {
      // Each warpgroup takes 64 of dQ's columns, then dK: dQ's reductions go out
      // while the tensor cores take dK (issued after the barrier, not with dV).
      wgmma_fence();
      start_query_gradient<T, D>(dq, shared_tile(ds_tile), k_matrices + warpgroup * kKeyBlockBytes);
      start_accumulate_keys<T, D>(dk, dsf, q_tile);
      wgmma_wait<1>();
      pin_registers(dq);
      add_dq(dq);
    } else if (warpgroup == 0) {
      // Warpgroup 0 alone takes dQ, dK having gone with dV: a product issued by
      // one warpgroup only, before another, is serialized by ptxas (C7520).
      wgmma_fence();
      start_query_gradient<T, D>(dq, shared_tile(ds_tile), k_matrices);
      wgmma_wait<0>();
      pin_registers(dq);
      add_dq(dq);
    }
    wgmma_wait<0>();
    pin_registers(dv);
    pin_registers(dk);
    pin_registers(pf);
    pin_registers(dsf);
    staged_head = head;
    staged_position = item.row_begin + q0;
    head = next_head;
    q0 = next_q0;
  }
  flash::wait_copies<0>();  // a CTA without steps still has K and V in flight
  __syncthreads();          // every product has read Q and dO: their buffers take dK and dV
  add_staged_dq();          // the last step's dQ

  // dK and dV staged in the Q and dO buffers. A warpgroup stores only its own rows, but a
  // barrier of its own (bar.sync with a warpgroup's id) cost the kernel a register spill:
  // the CTA's instead.
  store_key_gradients<T, D>(p, item, dk, dv, base + L::q, base + L::d_o, kKeysPerWarpgroup * warpgroup, first_key,
                            thread, lane, [] { __syncthreads(); });

  if (adds_dq) wait_bulk_groups<0>();  // dQ's reductions have read the tile and added it
  if constexpr (counting) counts.flush(p.counts, threadIdx.x == 0);
  // Keeps the item's coordinates, the layout's pointers and V's address live to the end.
  // Without it LLVM hoists address computations of the step loop into registers held
  // across the loop, and at 255 registers the loop runs 0.5-1% slower on the H100
  // (kernels/NOTEBOOK.md).
  asm volatile("" ::"r"(item.row), "r"(item.k0), "r"(item.first_query_tile), "r"(item.query_tile_count),
               "r"(item.group), "l"(lv.row_start), "l"(lv.row_valid), "l"(lv.row_piece), "l"(lv.piece_start),
               "r"(shared_address(v_tile)));
}

}  // namespace attnlab::wgmma_sm90
