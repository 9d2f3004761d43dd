#pragma once
// The Hopper backward's steps for one warpgroup's 64 keys, shared by its two kernels
// (backward_kernel.cuh, two warpgroups that also copy; backward_specialized_kernel.cuh,
// two consumers beside a producer warpgroup): the five products by wgmma and dQ's way
// into the fp32 accumulator, by 8-byte reductions from registers or staged for TMA bulk
// reductions.
#include <cstdint>
#include <type_traits>

#include "kernels/common/accumulator.cuh"
#include "kernels/common/counters.cuh"
#include "kernels/common/mask.cuh"
#include "kernels/common/query_info.cuh"
#include "kernels/common/softmax.cuh"
#include "kernels/common/work_item.cuh"
#include "kernels/wgmma_sm90/backward_params.cuh"
#include "kernels/wgmma_sm90/ptx.cuh"
#include "kernels/wgmma_sm90/shape.hpp"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

using QueryInfo = flash::QueryInfo<kStepQueries>;

// Tiles in wgmma's 128-byte swizzle: D/64 blocks of [rows][64 elements]; dQ staged as
// D/32 boxes of [64 queries][32 floats].
inline constexpr int kKeyBlockBytes = kCols * 128;           // one [128][64] block of K or V
inline constexpr int kQueryBlockBytes = kStepQueries * 128;  // one [64][64] block of Q or dO
inline constexpr int kQueryGradientBoxBytes = kStepQueries * kQueryGradientBoxFloats * 4;  // one box of dQ
// Or (a backward that stores each block's first dQ) as rows: a consumer's 64 columns of each
// of the step's queries, 256 bytes a query, 288 apart so that a warp's 8-byte stores from the
// accumulators' layout fill every bank twice.
inline constexpr int kQueryGradientRowBytes = 64 * 4;
inline constexpr int kQueryGradientRowStride = kQueryGradientRowBytes + 32;
inline constexpr int kQueryGradientRowsBytes = kStepQueries * kQueryGradientRowStride;  // a consumer's rows

// A CTA's steps are the teaching backward's (KeyTileItem::steps: per query head of
// the group, each query tile visiting the key tile) in halves of 64 queries: step s
// is half s % kHalves of its step s / kHalves.
inline constexpr int kHalves = kRows / kStepQueries;
template <typename T, int D>
using KeyItem = flash::KeyTileItem<T, D, kRows, kCols>;
template <typename Item>
__device__ __forceinline__ int step_count(const Item& item) {
  return item.steps() * kHalves;
}
// The step at query q0's queries that are its row's own: fewer than a step's where the
// step crosses the row's end, none where its half lies wholly past it.
template <typename Item>
__device__ __forceinline__ int queries_in_row(const Item& item, int q0) {
  return min(kStepQueries, item.extent - q0);
}
// A CTA's steps in order, their query head and first query advanced step by step, not
// decoded from the step's index: that divides by the item's query-tile count, an integer
// division in every role's step loop.
struct StepCursor {
  int head, first_query;
  template <typename Item>
  __device__ explicit StepCursor(const Item& item)
      : head(item.kv_head * item.group), first_query(item.first_query_tile * kRows) {}
  // A head's steps end at its last visiting query tile's end.
  template <typename Item>
  __device__ void advance(const Item& item) {
    first_query += kStepQueries;
    if (first_query == (item.first_query_tile + item.query_tile_count) * kRows) {
      ++head;
      first_query = item.first_query_tile * kRows;
    }
  }
};

// ---- the algorithm's steps, for one warpgroup's 64 keys ------------------------------
//
// Sᵀ, Pᵀ, dPᵀ and dSᵀ (KeyScores) are wgmma accumulators of 64 keys x 64 queries:
// element e of a thread is key 16·warp + lane/4 + 8·((e/2)%2) of the warpgroup's,
// query column accumulator_column(e, lane) of the step (kernels/common/accumulator.cuh).

using KeyScores = float[kStepQueries / 2];
template <int D>
using KeyGradient = float[D / 2];  // dK or dV of the warpgroup's 64 keys
using QueryGradient = float[32];   // dQ of the step's 64 queries x 64 columns
using KeyFragments = std::uint32_t[kStepQueries / 16][4];

// The counting run's tallies: a thread's scores that the mask leaves finite, and, by the
// one thread that counts for the CTA (`counts_cells`), each step's cells and the tiles visited.
struct StepCounts {
  CellCounts cells;
  long long tiles = 0, finite = 0;
  // The step at query q0, the CTA's `step`-th, of Sᵀ before the mask (`scores`).
  template <typename Item>
  __device__ void add(const KeyScores& scores, const QueryInfo& info, const LayoutView& lv, const Item& item, int q0,
                      int step, int first_key, bool masked, bool counts_cells, int lane) {
    KeyScores masked_scores;  // Sᵀ as the forward masks it: -inf outside the mask
    for (int e = 0; e < kStepQueries / 2; ++e) masked_scores[e] = scores[e];
    flash::mask_as_forward(masked_scores, info, first_key, masked, lane);
    finite += flash::finite_scores(masked_scores);
    if (counts_cells) {
      cells += count_tile(lv, item.row, q0, item.k0, TileShape{kStepQueries, kCols});
      tiles += step % kHalves == 0;  // a tile's first half
    }
  }
  // Once, at the CTA's end.
  __device__ void flush(flash::DeviceCounts* to, bool counts_cells) const {
    flash::add_finite_scores(to, finite);
    if (counts_cells) flash::add_counts(to, cells, tiles);
  }
};

// Starts s = A·Bᵀ (`onto`: s += A·Bᵀ) for the warpgroup's 64 rows of a key tile (K or V)
// against the step's 64 rows (Q or dO), D/16 wgmmas along d; one commit group.
template <typename T, int D>
__device__ __forceinline__ void start_key_scores(KeyScores& s, SharedTile key_rows, SharedTile query_tile,
                                                 bool onto = false) {
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk)
    wgmma_64xn_shared<std::is_same_v<T, __nv_bfloat16>, kStepQueries>(
        s, key_rows.descriptor((kk / 4) * kKeyBlockBytes + (kk % 4) * 32, 16),
        query_tile.descriptor((kk / 4) * kQueryBlockBytes + (kk % 4) * 32, 16), onto || kk > 0);
  wgmma_commit();
}

// Starts dPᵀ − Δ = V·dOᵀ − Δ in `ds`, once Sᵀ's product is started: the accumulator starts
// at −Δ of its column, so the tensor cores subtract Δ, and its loads wait behind Sᵀ's
// product, not in front of the tensor cores when they wait for dSᵀ.
template <typename T, int D>
__device__ __forceinline__ void start_score_gradient_terms(KeyScores& ds, SharedTile v_rows, SharedTile do_tile,
                                                           const QueryInfo& info, int lane) {
#pragma unroll
  for (int j = 0; j < kStepQueries / 8; ++j) {  // e = 4j .. 4j + 3: columns c, c + 1 of two keys
    const float2 delta = flash::column_pair<float2>(info.delta, 4 * j, lane);
    ds[4 * j] = ds[4 * j + 2] = -delta.x;
    ds[4 * j + 1] = ds[4 * j + 3] = -delta.y;
  }
  wgmma_fence();  // the product adds to what these writes left
  start_key_scores<T, D>(ds, v_rows, do_tile, true);
}

// Starts acc += A·B with A (the warpgroup's 64 keys x the step's 64 queries) from
// registers and B the step's Q or dO tile read transposed (d contiguous): 4
// wgmmas of 16 queries; one commit group.
template <typename T, int D>
__device__ __forceinline__ void start_accumulate_keys(KeyGradient<D>& acc, const KeyFragments& a,
                                                      SharedTile query_tile) {
#pragma unroll
  for (int kk = 0; kk < kStepQueries / 16; ++kk)
    wgmma_64xn_registers<std::is_same_v<T, __nv_bfloat16>, D>(acc, a[kk],
                                                              query_tile.descriptor(kk * 16 * 128, kQueryBlockBytes));
  wgmma_commit();
}

// The middle of a step, once Sᵀ (`s`) and dPᵀ − Δ (`ds`) are started as the warpgroup's
// last two commit groups and Sᵀ has landed: Pᵀ = exp(Sᵀ·scale − LSE) in `s`, masked where
// the step needs it; then, dPᵀ − Δ landed, dSᵀ = Pᵀ∘(dPᵀ − Δ) in `ds`, staged in `ds_tile`
// (read transposed by dQ's product), and both as wgmma's A operand. `first_key`: the
// thread's first key in the tile.
template <typename T>
__device__ __forceinline__ void key_step_operands(KeyScores& s, KeyScores& ds, KeyFragments& pf, KeyFragments& dsf,
                                                  const QueryInfo& info, int first_key, bool masked, float scale_log2,
                                                  unsigned char* ds_tile, int lane) {
  flash::probabilities_from_lse(s, info, first_key, masked, scale_log2, lane);  // Pᵀ
  wgmma_wait<0>();
  pin_registers(ds);
#pragma unroll
  for (int e = 0; e < kStepQueries / 2; ++e) ds[e] *= s[e];  // dSᵀ
  flash::accumulator_as_a<T>(pf, s);
  flash::accumulator_as_a<T>(dsf, ds);
  stage_fragments<kStepQueries, kCols>(ds_tile, dsf, first_key, lane);
}

// Starts dQ = dS·K for the step's 64 queries and the 64 columns of one of K's blocks
// (`k_block`, of the key tile's 128 keys): dS is the staged dSᵀ read transposed (queries
// contiguous), K's rows are the contraction (read transposed, d contiguous); 8 wgmmas of
// 16 keys; one commit group.
template <typename T, int D>
__device__ __forceinline__ void start_query_gradient(QueryGradient& dq, SharedTile ds_tile, SharedTile k_block) {
#pragma unroll
  for (int kk = 0; kk < kCols / 16; ++kk)
    wgmma_64xn_shared<std::is_same_v<T, __nv_bfloat16>, 64, true, true>(
        dq, ds_tile.descriptor(kk * 16 * 128, kKeyBlockBytes), k_block.descriptor(kk * 16 * 128, kKeyBlockBytes),
        kk > 0);
  wgmma_commit();
}

// dQ's 64 x 64 block (the warpgroup's columns) into the staged dQ tile: column c of
// row r at box c / 32, its 16-byte chunk swizzled by r % 8 as TMA reads the box back.
// Shared memory takes a warp's 8-byte stores half a warp at a time; in the accumulators'
// order a half-warp's 4 rows put their 8 chunks on 4 chunk positions, two stores a bank.
// So the odd rows store their column groups in another order (group g ^ 2 when the even
// rows store g: 16 columns on, in the same box, 64 bytes on in the row): a half-warp's
// chunks then land on 8 positions. Rows past the row's valid tokens are staged too: they
// hold zeros (no attended key, a zero dO row), which the bulk reduction adds to whatever
// follows the row.
__device__ __forceinline__ void stage_query_gradient(unsigned char* dq_tile, const QueryGradient& acc, int warpgroup,
                                                     int warp, int lane) {
  const bool odd_row = (lane / 4) % 2;
  const int flip = odd_row ? 64 : 0;
#pragma unroll
  for (int e = 0; e < 32; e += 2) {
    const int row = 16 * warp + flash::accumulator_row(e, lane);
    const int col = 64 * warpgroup + flash::accumulator_column(e, lane);
    const int in_box = col % kQueryGradientBoxFloats;
    const int at = (col / kQueryGradientBoxFloats) * kQueryGradientBoxBytes + row * 128 +
                   ((in_box / 4) ^ (row % 8)) * 16 + (in_box % 4) * 4;
    *reinterpret_cast<float2*>(dq_tile + (at ^ flip)) =
        odd_row ? float2{acc[e ^ 8], acc[(e ^ 8) + 1]} : float2{acc[e], acc[e + 1]};
  }
}

// dQ's 64 x 64 block (the warpgroup's columns) into its rows of the staged dQ: query r at
// r · kQueryGradientRowStride of the warpgroup's part.
__device__ __forceinline__ void stage_query_gradient_rows(unsigned char* dq_tile, const QueryGradient& acc,
                                                          int warpgroup, int warp, int lane) {
  unsigned char* const part = dq_tile + warpgroup * kQueryGradientRowsBytes;
#pragma unroll
  for (int e = 0; e < 32; e += 2) {
    const int row = 16 * warp + flash::accumulator_row(e, lane);
    *reinterpret_cast<float2*>(part + row * kQueryGradientRowStride + flash::accumulator_column(e, lane) * 4) =
        float2{acc[e], acc[e + 1]};
  }
}

// Starts adding (or, `store`, storing) the staged dQ of the warpgroup's 64 columns into the
// fp32 accumulator at (`first_position`, `head`); one bulk group. One thread.
__device__ __forceinline__ void start_writing_query_gradient(const CUtensorMap* dq_map, const unsigned char* dq_tile,
                                                             int warpgroup, int head, int first_position, bool store) {
  constexpr int boxes = 64 / kQueryGradientBoxFloats;  // of the warpgroup's columns
#pragma unroll
  for (int b = boxes * warpgroup; b < boxes * (warpgroup + 1); ++b) {
    const unsigned char* const box = dq_tile + b * kQueryGradientBoxBytes;
    if (store)
      store_box(dq_map, box, b * kQueryGradientBoxFloats, head, first_position);
    else
      reduce_add_box(dq_map, box, b * kQueryGradientBoxFloats, head, first_position);
  }
  commit_bulk_groups();
}

// The same from dQ's rows (stage_query_gradient_rows): the step's first `rows` queries, each
// by a copy of its own, `block` at the step's first query and head, `row_stride` floats per
// query; a bulk group of every lane's. The writer warp.
__device__ __forceinline__ void start_writing_query_gradient_rows(float* block, std::int64_t row_stride,
                                                                  const unsigned char* dq_tile, int warpgroup, int rows,
                                                                  bool store, int lane) {
  for (int r = lane; r < rows; r += 32) {
    float* const to = block + r * row_stride + 64 * warpgroup;
    const unsigned char* const from = dq_tile + warpgroup * kQueryGradientRowsBytes + r * kQueryGradientRowStride;
    if (store)
      store_bulk(to, from, kQueryGradientRowBytes);
    else
      reduce_add_bulk(to, from, kQueryGradientRowBytes);
  }
  commit_bulk_groups();
}

// dQ's 64 x 64 block into the fp32 accumulator (`dq` at the step's first query and
// the block's first column; `stride` floats per query), queries at or past
// `rows_present` skipped: one 8-byte reduction per pair of columns.
__device__ __forceinline__ void add_query_gradient(float* dq, std::int64_t stride, int rows_present,
                                                   const QueryGradient& acc, int warp, int lane) {
#pragma unroll
  for (int e = 0; e < 32; e += 2) {
    const int row = 16 * warp + flash::accumulator_row(e, lane);
    if (row < rows_present)
      flash::atomic_add_pair(dq + row * stride + flash::accumulator_column(e, lane), acc[e], acc[e + 1]);
  }
}

// dK and dV of a warpgroup's 64 keys, every key of the tile inside the row (padding keys
// too: zeros there), out through shared memory in whole lines, where a warp's store from the
// accumulators' layout touches 8 rows: staged in `dk_tile` (scaled) and `dv_tile`, then,
// after `all_staged` (a barrier of every thread that stages), the warpgroup's rows stored.
// `keys`: the warpgroup's first key in the tile; `first_key`: the thread's.
template <typename T, int D, typename Item, typename Barrier>
__device__ __forceinline__ void store_key_gradients(const flash::BackwardParams& p, const Item& item,
                                                    const KeyGradient<D>& dk, const KeyGradient<D>& dv,
                                                    unsigned char* dk_tile, unsigned char* dv_tile, int keys,
                                                    int first_key, int thread, int lane, Barrier all_staged) {
  const float key_scale[2] = {p.scale, p.scale};
  const float unit[2] = {1.f, 1.f};  // stage_accumulator's row factors, for rows taken as they are
  stage_accumulator<T, D, kCols>(dk_tile, dk, first_key, key_scale, lane);
  stage_accumulator<T, D, kCols>(dv_tile, dv, first_key, unit, lane);
  all_staged();
  const int key_row = item.k0 + keys;
  const std::int64_t kv_stride = std::int64_t(p.kv_heads) * D;
  const std::int64_t out = (std::int64_t(item.row_begin + key_row) * p.kv_heads + item.kv_head) * D;
  store_staged_rows<T, D, kCols>(static_cast<T*>(p.dk) + out, kv_stride, item.extent - key_row, dk_tile, keys, thread);
  store_staged_rows<T, D, kCols>(static_cast<T*>(p.dv) + out, kv_stride, item.extent - key_row, dv_tile, keys, thread);
}

}  // namespace attnlab::wgmma_sm90
