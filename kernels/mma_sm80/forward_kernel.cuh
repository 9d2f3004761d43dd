#pragma once
// The teaching kernel, mma-sm80: the tiled forward (FlashAttention-2 style) behind
// padded, packed and varlen. The layout decides everything layout-specific: which
// row and query tile a CTA owns (the work list), which key tiles it visits
// (key_tiles_visited) and which cells take part (attended_keys, with tile_needs_mask
// as the fast path; both core/layout/layout.hpp, tested equal to cell_kind cell by cell).
// The math is the same for every layout:
//   load K/V tile (cp.async, double-buffered) -> S = Q·Kᵀ (mma.sync) -> mask ->
//   online softmax (exp2, running max and sum) -> O += P·V (P stays in registers).
// One CTA = 4 warps = 64 query rows of one head at a time; each warp owns 16 rows.
// The mask, the softmax and the work item are the shared ones (kernels/common/).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/layout/layout.hpp"
#include "kernels/common/accumulator.cuh"
#include "kernels/common/copy_async.cuh"
#include "kernels/common/counters.cuh"
#include "kernels/common/mask.cuh"
#include "kernels/common/output_sums.cuh"
#include "kernels/common/params.cuh"
#include "kernels/common/scheduler.cuh"
#include "kernels/common/softmax.cuh"
#include "kernels/common/work_item.cuh"
#include "kernels/mma_sm80/mma.cuh"
#include "kernels/mma_sm80/shape.hpp"

namespace attnlab::mma_sm80 {

using flash::Params;

template <int D>
constexpr int smem_bytes() {
  return (2 * kRows + 4 * kCols) * D * 2;  // two Q, two K and two V buffers, 16-bit elements
}

// Starts copying `rows` rows into this kernel's swizzled tile, by the CTA's threads;
// rows at or past `rows_present` are zeros.
template <typename T, int D, int rows>
__device__ __forceinline__ void copy_tile_async(T* tile, const T* first_row, std::int64_t stride, int rows_present) {
  flash::copy_rows_async<T, D, rows, kThreads>([tile](int row, int chunk) { return tile + swizzled<D>(row, chunk); },
                                               first_row, stride, rows_present);
}

// ---- the algorithm's steps, for one warp's 16 query rows -------------------------
//
// S, P and O are accumulators in the layout of kernels/common/accumulator.cuh: s[e]
// is key column accumulator_column(e, lane) of query row accumulator_row(e, lane) of
// the warp's 16 rows.

using Scores = float[kCols / 2];  // S or P of the warp's rows against one key tile
template <int D>
using Output = float[D / 2];  // the warp's O accumulator
template <int D>
using QueryFragments = unsigned[D / 16][4];
using ProbabilityFragments = unsigned[kCols / 16][4];

// The warp's Q rows as mma A fragments, held in registers for the whole item.
template <typename T, int D>
__device__ __forceinline__ void load_queries(QueryFragments<D>& q, const T* q_tile, int warp, int lane) {
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk)
    load_fragments(q[kk], q_tile + swizzled<D>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
}

// s = Q·Kᵀ against the tile's 64 keys (K's rows are keys: plain ldmatrix gives B fragments).
template <typename T, int D>
__device__ __forceinline__ void scores_qk(Scores& s, const QueryFragments<D>& q, const T* k_tile, int lane) {
#pragma unroll
  for (int e = 0; e < kCols / 2; ++e) s[e] = 0.f;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
    for (int j = 0; j < kCols / 8; j += 2) {
      unsigned b[4];
      load_fragments(b, k_tile + swizzled<D>(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)));
      mma_16x8x16<T>(s, j, q[kk], b[0], b[1]);
      mma_16x8x16<T>(s, j + 1, q[kk], b[2], b[3]);
    }
  }
}

// O += P·V (V's rows are keys: ldmatrix.trans gives B fragments).
template <typename T, int D>
__device__ __forceinline__ void accumulate_pv(Output<D>& o, const ProbabilityFragments& pf, const T* v_tile, int lane) {
#pragma unroll
  for (int kk = 0; kk < kCols / 16; ++kk) {
#pragma unroll
    for (int j = 0; j < D / 8; j += 2) {
      unsigned b[4];
      load_fragments_transposed(b,
                                v_tile + swizzled<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), j + (lane >> 4)));
      mma_16x8x16<T>(o, j, pf[kk], b[0], b[1]);
      mma_16x8x16<T>(o, j + 1, pf[kk], b[2], b[3]);
    }
  }
}

// ---- the kernel ---------------------------------------------------------------

// A work item (kernels/common/work_item.cuh) and where its data is: its first query
// row, and the first key and value of its first key tile, of its head.
template <typename T, int D>
struct Item : flash::QueryTileItem<kRows, kCols> {
  const T *q, *k, *v;

  __device__ Item(const Params& p, int index) : flash::QueryTileItem<kRows, kCols>(p, index) {
    q = static_cast<const T*>(p.q) + (std::int64_t(query_begin + q0) * p.heads + head) * D;
    const std::int64_t first_key = row_begin + key_tiles.first * kCols;
    k = static_cast<const T*>(p.k) + (first_key * p.kv_heads + kv_head) * D;
    v = static_cast<const T*>(p.v) + (first_key * p.kv_heads + kv_head) * D;
  }
};

// O /= row sum and LSE (finish_softmax), folded into running sums where Params::o_sums
// is set (kernels/common/output_sums.cuh). Otherwise the warp stages its 16 output rows
// in its own rows of the item's Q tile (read by no other warp, refilled only after
// later barriers), then stores them 16 bytes per thread.
template <typename T, int D>
__device__ __forceinline__ void store_output(const Params& p, const Item<T, D>& item, const Output<D>& o,
                                             const float (&row_max)[2], const float (&row_sum)[2], T* q_tile, int warp,
                                             int lane) {
  float inv_sum[2], lse[2];
  flash::finish_softmax(row_max, row_sum, p.scale_log2, inv_sum, lse);
  if (p.o_sums) {  // a context-parallel launch: into the rank's sums instead
    flash::fold_into_sums<D>(p, item, warp * 16 + (lane >> 2), o, inv_sum, lse, lane);
    return;
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = warp * 16 + (lane >> 2) + 8 * i;
      *reinterpret_cast<unsigned*>(q_tile + swizzled<D>(row, j) + ((lane & 3) << 1)) =
          flash::pack_pair<T>(o[4 * j + 2 * i] * inv_sum[i], o[4 * j + 2 * i + 1] * inv_sum[i]);
    }
  __syncwarp();
  constexpr int chunks = D / 8;
#pragma unroll
  for (int n = 0; n < 16 * chunks / 32; ++n) {
    const int i = lane + 32 * n;
    const int row = warp * 16 + i / chunks, chunk = i % chunks;
    if (item.q0 + row < item.query_extent)
      *reinterpret_cast<uint4*>(static_cast<T*>(p.o) +
                                (std::int64_t(item.query_begin + item.q0 + row) * p.heads + item.head) * D +
                                chunk * 8) = *reinterpret_cast<const uint4*>(q_tile + swizzled<D>(row, chunk));
  }
  if ((lane & 3) == 0) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int q = item.q0 + warp * 16 + (lane >> 2) + 8 * i;
      if (q < item.query_extent) p.lse[std::int64_t(item.query_begin + q) * p.heads + item.head] = lse[i];
    }
  }
}

// A persistent grid: the scheduler gives CTA b items b, b + gridDim.x, ... of the work
// list times the heads. While a CTA works on the last key tile of one item, the Q and
// first K/V tiles of its next item are already on their way, so short documents pay no
// load latency per item. With `counting` (the counting run's instantiation) it also
// counts its tiles, cells and the scores its mask leaves finite.
template <typename T, int D, bool counting>
__global__ void __launch_bounds__(kThreads, 2) forward(const Params p, const flash::StaticScheduler scheduler) {
  using flash::commit_copies;
  using flash::wait_copies;
  extern __shared__ __align__(128) unsigned char smem[];
  T* const q_tiles = reinterpret_cast<T*>(smem);  // two buffers: this item's, the next item's
  T* const k_tiles = q_tiles + 2 * kRows * D;     // two buffers
  T* const v_tiles = k_tiles + 2 * kCols * D;     // two buffers
  constexpr TileShape tile{kRows, kCols};
  const LayoutView& lv = p.layout;
  const std::int64_t q_stride = std::int64_t(p.heads) * D, kv_stride = std::int64_t(p.kv_heads) * D;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  flash::WorkTile work = scheduler.get_initial_work();
  if (!scheduler.is_valid(work)) return;
  Item<T, D> item(p, work.index);
  // Only valid tokens are read: padding and positions past the row load as zeros.
  copy_tile_async<T, D, kRows>(q_tiles, item.q, q_stride, item.bounds.queries - item.q0);
  copy_tile_async<T, D, kCols>(k_tiles, item.k, kv_stride, item.keys_present());
  commit_copies();
  copy_tile_async<T, D, kCols>(v_tiles, item.v, kv_stride, item.keys_present());
  commit_copies();

  int q_buffer = 0;    // which Q buffer holds this item's queries
  int tile_count = 0;  // key tiles done by this CTA: picks the K/V buffer
  CellCounts counted;
  long long visited = 0, finite = 0;
  for (;;) {
    const flash::WorkTile next_work = scheduler.get_next_work(work);
    const bool has_next = scheduler.is_valid(next_work);
    // The next item's coordinates are read now so its loads can start during this item's last tile.
    const Item<T, D> next = has_next ? Item<T, D>(p, next_work.index) : item;
    T* const q_tile = q_tiles + q_buffer * kRows * D;

    KeyRange keys[2];  // the keys each of this thread's two query rows attends
#pragma unroll
    for (int i = 0; i < 2; ++i) keys[i] = attended_keys(lv, item.bounds, item.q0 + warp * 16 + (lane >> 2) + 8 * i);

    QueryFragments<D> q;
    Output<D> o = {};
    float row_max[2] = {-INFINITY, -INFINITY};  // raw scores
    float row_sum[2] = {0.f, 0.f};              // this thread's part of the row's sum

    const int visits = item.key_tiles.count();
    for (int step = 0; step < visits; ++step, ++tile_count) {
      const int k0 = (item.key_tiles.first + step) * kCols;
      const int next_present = item.keys_present() - (step + 1) * kCols;  // keys present in the item's next tile
      const int this_buffer = tile_count & 1, other_buffer = this_buffer ^ 1;
      wait_copies<1>();  // K[kt] (and Q) landed; V[kt] may still be in flight
      __syncthreads();
      if (step == 0) load_queries<T, D>(q, q_tile, warp, lane);
      if (step + 1 < visits) {
        copy_tile_async<T, D, kCols>(k_tiles + other_buffer * kCols * D, item.k + (step + 1) * kCols * kv_stride,
                                     kv_stride, next_present);
      } else if (has_next) {
        copy_tile_async<T, D, kRows>(q_tiles + (q_buffer ^ 1) * kRows * D, next.q, q_stride,
                                     next.bounds.queries - next.q0);
        copy_tile_async<T, D, kCols>(k_tiles + other_buffer * kCols * D, next.k, kv_stride, next.keys_present());
      }
      commit_copies();  // possibly empty: keeps the group count the waits rely on

      Scores s;
      scores_qk<T, D>(s, q, k_tiles + this_buffer * kCols * D, lane);
      if (tile_needs_mask(lv, item.bounds, item.q0, k0, tile)) flash::mask_scores(s, keys, k0, lane);
      if constexpr (counting) {
        finite += flash::finite_scores(s);
        if (threadIdx.x == 0) {
          counted += count_tile(lv, item.work.row, item.q0, k0, tile);
          ++visited;
        }
      }
      float rescale[2];
      flash::online_softmax(s, row_max, row_sum, rescale, p.scale_log2);
      flash::rescale_output(o, rescale);
      ProbabilityFragments pf;
      flash::accumulator_as_a<T>(pf, s);

      wait_copies<1>();  // V[kt] landed; the next K may still be in flight
      __syncthreads();
      if (step + 1 < visits)
        copy_tile_async<T, D, kCols>(v_tiles + other_buffer * kCols * D, item.v + (step + 1) * kCols * kv_stride,
                                     kv_stride, next_present);
      else if (has_next)
        copy_tile_async<T, D, kCols>(v_tiles + other_buffer * kCols * D, next.v, kv_stride, next.keys_present());
      commit_copies();

      accumulate_pv<T, D>(o, pf, v_tiles + this_buffer * kCols * D, lane);
    }

    store_output<T, D>(p, item, o, row_max, row_sum, q_tile, warp, lane);
    if (!has_next) break;
    work = next_work;
    item = next;
    q_buffer ^= 1;
  }
  wait_copies<0>();
  if constexpr (counting) {
    flash::add_finite_scores(p.counts, finite);
    if (threadIdx.x == 0) flash::add_counts(p.counts, counted, visited);
  }
}

}  // namespace attnlab::mma_sm80
