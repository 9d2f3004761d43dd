#pragma once
// The teaching kernel's backward (mma-sm80, FlashAttention-2 style) behind padded,
// packed and varlen. A CTA owns one key tile of one row and one KV head: it keeps
// K_j and V_j in shared memory and dK_j, dV_j in registers, and walks every (query
// head of the KV head's group, query tile visiting key tile j), i.e. the forward's
// tiles seen from the key side (query_tiles_visiting). Per query tile:
//   Sᵀ = K·Qᵀ -> Pᵀ = exp(S·scale − LSE), masked -> dV += Pᵀ·dO -> dPᵀ = V·dOᵀ ->
//   dSᵀ = Pᵀ∘(dPᵀ − Δ) -> dK += dSᵀ·Q -> dQ += dS·K (fp32 atomics).
// Each warp owns 16 keys for the first five steps (the forward's helpers apply
// with keys in the place of queries) and 16 queries for the dQ step, which reads
// dS back from shared memory. P is recomputed from the forward's LSE; nothing of
// size N² is stored.
//
// dQ: a query tile gets contributions from every key tile it visits, which
// belong to different CTAs. They are summed with fp32 atomicAdd into a zeroed
// accumulator, then scaled and converted to the dtype. The alternative, a second
// kernel that walks query tiles and recomputes S and dP for dQ alone, makes the
// backward 7 GEMMs per tile instead of 5; the atomics cost one fp32
// read-modify-write of the tile's dQ in L2 instead. The price: dQ's summation order
// varies from run to run, so dQ is not bit-reproducible (dK and dV are).
//
// GQA: the group's query heads are looped inside the CTA, so dK and dV are summed
// over the group in registers and written once, without atomics.
#include "kernels/common/query_info.cuh"
#include "kernels/common/scheduler.cuh"
#include "kernels/mma_sm80/forward_kernel.cuh"

namespace attnlab::mma_sm80 {

using flash::BackwardParams;
using QueryInfo = flash::QueryInfo<kRows>;
template <typename T, int D>
using KeyTileItem = flash::KeyTileItem<T, D, kRows, kCols>;

template <int D>
constexpr int backward_smem_bytes() {
  // K and V of the key tile; two buffers each of Q and dO; dSᵀ (keys x queries); two QueryInfo.
  return (2 * kCols * D + 4 * kRows * D + kCols * kRows) * 2 + 2 * int(sizeof(QueryInfo));
}

// ---- the algorithm's steps, for one warp ------------------------------------------
//
// In Sᵀ, Pᵀ, dPᵀ and dSᵀ (type Scores) the warp's 16 rows are keys and the 64
// columns are the queries of the tile: s[e] is key warp·16 + accumulator_row(e, lane)
// against query accumulator_column(e, lane) of the tile.

// Sᵀ = K·Qᵀ for the warp's 16 keys (and dPᵀ = V·dOᵀ the same way): the forward's
// S = Q·Kᵀ (scores_qk) with K in the place of Q. The warp's K fragments are read
// from shared memory one 16-wide slice at a time, not all held in registers as
// the forward holds Q's, and the slices are a loop, not unrolled, so the
// compiler keeps no per-slice addresses: the registers go to the dK and dV
// accumulators (unrolled, ptxas spilled at head dim 128).
template <typename T, int D>
__device__ __forceinline__ void scores_kq(Scores& s, const T* k_tile, const T* q_tile, int warp, int lane) {
#pragma unroll
  for (int e = 0; e < kRows / 2; ++e) s[e] = 0.f;
#pragma unroll 1
  for (int kk = 0; kk < D / 16; ++kk) {
    unsigned a[4];
    load_fragments(a, k_tile + swizzled<D>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
    for (int j = 0; j < kRows / 8; j += 2) {
      unsigned b[4];
      load_fragments(b, q_tile + swizzled<D>(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)));
      mma_16x8x16<T>(s, j, a, b[0], b[1]);
      mma_16x8x16<T>(s, j + 1, a, b[2], b[3]);
    }
  }
}

// The warp's 16 rows of dSᵀ, in 16 bits, into the keys x queries tile the dQ step reads.
template <typename T>
__device__ __forceinline__ void stage_score_gradients(T* ds_tile, const Scores& ds, int warp, int lane) {
#pragma unroll
  for (int j = 0; j < kRows / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int key = warp * 16 + (lane >> 2) + 8 * i;
      *reinterpret_cast<unsigned*>(ds_tile + swizzled<kRows>(key, j) + ((lane & 3) << 1)) =
          flash::pack_pair<T>(ds[4 * j + 2 * i], ds[4 * j + 2 * i + 1]);
    }
}

// dQ += dS·K for the warp's 16 queries of the tile, added into the fp32
// accumulator `dq` (its first row; `stride` floats per row), rows at or past
// `rows_present` skipped. dS comes from the dSᵀ tile: ldmatrix.trans of keys x
// queries gives A fragments of queries x keys. K's rows are keys, the
// contraction: ldmatrix.trans gives B fragments, as V's in the forward's P·V.
// Eight accumulators at a time, added and dropped, keep the registers for dK and dV.
template <typename T, int D>
__device__ __forceinline__ void accumulate_dq(float* dq, std::int64_t stride, int rows_present, const T* ds_tile,
                                              const T* k_tile, int warp, int lane) {
  unsigned a[kCols / 16][4];
#pragma unroll
  for (int kk = 0; kk < kCols / 16; ++kk)
    load_fragments_transposed(
        a[kk], ds_tile + swizzled<kRows>(kk * 16 + (lane & 7) + ((lane >> 4) << 3), warp * 2 + ((lane >> 3) & 1)));
#pragma unroll
  for (int j = 0; j < D / 8; j += 2) {
    float acc[8] = {};  // columns 8j..8j+15 of dQ
#pragma unroll
    for (int kk = 0; kk < kCols / 16; ++kk) {
      unsigned b[4];
      load_fragments_transposed(b,
                                k_tile + swizzled<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), j + (lane >> 4)));
      mma_16x8x16<T>(acc, 0, a[kk], b[0], b[1]);
      mma_16x8x16<T>(acc, 1, a[kk], b[2], b[3]);
    }
#pragma unroll
    for (int e = 0; e < 8; e += 2) {
      const int row = flash::accumulator_row(e, lane);
      if (row < rows_present)
        flash::atomic_add_pair(dq + row * stride + j * 8 + flash::accumulator_column(e, lane), acc[e], acc[e + 1]);
    }
  }
}

// The warp's 16 rows x D of an accumulator times `factor` into `out` (its first
// row; `stride` elements per row), rows at or past `rows_present` skipped.
template <typename T, int D>
__device__ __forceinline__ void store_rows(T* out, std::int64_t stride, int rows_present, const Output<D>& acc,
                                           float factor, int lane) {
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = (lane >> 2) + 8 * i;
      if (row < rows_present)
        *reinterpret_cast<unsigned*>(out + row * stride + j * 8 + ((lane & 3) << 1)) =
            flash::pack_pair<T>(acc[4 * j + 2 * i] * factor, acc[4 * j + 2 * i + 1] * factor);
    }
}

// ---- the kernel ---------------------------------------------------------------

// Starts loading one step's query tile into the given buffers: Q and dO rows
// (zeros past the row's valid tokens) and the tile's QueryInfo.
template <typename T, int D>
__device__ __forceinline__ void start_query_tile(const BackwardParams& p, const KeyTileItem<T, D>& item, int head,
                                                 int q0, T* q_tile, T* do_tile, QueryInfo& info) {
  const std::int64_t stride = std::int64_t(p.heads) * D;
  const std::int64_t first = std::int64_t(item.row_begin + q0) * p.heads + head;
  copy_tile_async<T, D, kRows>(q_tile, static_cast<const T*>(p.q) + first * D, stride, item.valid - q0);
  copy_tile_async<T, D, kRows>(do_tile, static_cast<const T*>(p.d_o) + first * D, stride, item.valid - q0);
  flash::start_query_info<kCols>(p, item.row_begin, item.bounds(), head, q0, item.k0, info, threadIdx.x);
}

// One CTA per (key tile, KV head), in the backward's work-list order (heaviest
// rows first, a row's most-visited key tiles first). The next step's Q, dO, LSE
// and Δ are copied while this step computes. With `counting`, each step also counts
// its tile, cells, and the scores the mask leaves finite.
template <typename T, int D, bool counting>
__global__ void __launch_bounds__(kThreads, 2) backward(const BackwardParams p, const flash::OneCtaPerWork scheduler) {
  using flash::commit_copies;
  using flash::wait_copies;
  extern __shared__ __align__(128) unsigned char smem[];
  T* const k_tile = reinterpret_cast<T*>(smem);
  T* const v_tile = k_tile + kCols * D;
  T* const q_tiles = v_tile + kCols * D;                                           // two buffers
  T* const do_tiles = q_tiles + 2 * kRows * D;                                     // two buffers
  T* const ds_tile = do_tiles + 2 * kRows * D;                                     // dSᵀ: keys x queries
  QueryInfo* const infos = reinterpret_cast<QueryInfo*>(ds_tile + kCols * kRows);  // two buffers
  constexpr TileShape tile{kRows, kCols};
  const LayoutView& lv = p.layout;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  const KeyTileItem<T, D> item(p, scheduler.get_initial_work().index);
  const std::int64_t kv_stride = std::int64_t(p.kv_heads) * D;
  const int steps = item.steps();
  copy_tile_async<T, D, kCols>(k_tile, item.k, kv_stride, item.valid - item.k0);
  copy_tile_async<T, D, kCols>(v_tile, item.v, kv_stride, item.valid - item.k0);
  commit_copies();
  if (steps > 0) start_query_tile<T, D>(p, item, item.head_of(0), item.q0_of(0), q_tiles, do_tiles, infos[0]);
  commit_copies();

  Output<D> dk = {}, dv = {};
  const int first_key_of_thread = warp * 16 + (lane >> 2);  // the thread's first key in the tile
  CellCounts counted;
  long long visited = 0, finite = 0;
  for (int step = 0; step < steps; ++step) {
    const int buffer = step & 1;
    const int head = item.head_of(step), q0 = item.q0_of(step);
    if (step + 1 < steps)
      start_query_tile<T, D>(p, item, item.head_of(step + 1), item.q0_of(step + 1), q_tiles + (buffer ^ 1) * kRows * D,
                             do_tiles + (buffer ^ 1) * kRows * D, infos[buffer ^ 1]);
    commit_copies();   // possibly empty: keeps the group count the wait relies on
    wait_copies<1>();  // K, V and this step's copies landed; the next step's may be in flight
    __syncthreads();
    const T* const q_tile = q_tiles + buffer * kRows * D;
    const T* const do_tile = do_tiles + buffer * kRows * D;
    const QueryInfo& info = infos[buffer];
    const bool masked = tile_needs_mask(lv, item.bounds(), q0, item.k0, tile);

    Scores s;
    scores_kq<T, D>(s, k_tile, q_tile, warp, lane);
    if constexpr (counting) {
      Scores masked_scores;  // S as the forward masks it: -inf outside the mask
      for (int e = 0; e < kRows / 2; ++e) masked_scores[e] = s[e];
      flash::mask_as_forward(masked_scores, info, first_key_of_thread, masked, lane);
      finite += flash::finite_scores(masked_scores);
      if (threadIdx.x == 0) {
        counted += count_tile(lv, item.row, q0, item.k0, tile);
        ++visited;
      }
    }
    flash::probabilities_from_lse(s, info, first_key_of_thread, masked, p.scale_log2, lane);  // Pᵀ
    ProbabilityFragments pf;
    flash::accumulator_as_a<T>(pf, s);
    accumulate_pv<T, D>(dv, pf, do_tile, lane);  // dV += Pᵀ·dO

    Scores ds;
    scores_kq<T, D>(ds, v_tile, do_tile, warp, lane);  // dPᵀ = V·dOᵀ
    flash::score_gradients(ds, s, info.delta, lane);
    stage_score_gradients<T>(ds_tile, ds, warp, lane);
    ProbabilityFragments dsf;
    flash::accumulator_as_a<T>(dsf, ds);
    accumulate_pv<T, D>(dk, dsf, q_tile, lane);  // dK += dSᵀ·Q

    __syncthreads();  // every warp's rows of dSᵀ staged
    const int dq_row = q0 + warp * 16;
    accumulate_dq<T, D>(p.dq_accum + (std::int64_t(item.row_begin + dq_row) * p.heads + head) * D,
                        std::int64_t(p.heads) * D, item.valid - dq_row, ds_tile, k_tile, warp, lane);
    __syncthreads();  // dSᵀ and this step's buffers are free for the step after next
  }
  wait_copies<0>();

  // dK, dV of every key of the tile inside the row, padding keys too (zeros there).
  const int key_row = item.k0 + warp * 16;
  const std::int64_t out = (std::int64_t(item.row_begin + key_row) * p.kv_heads + item.kv_head) * D;
  store_rows<T, D>(static_cast<T*>(p.dk) + out, kv_stride, item.extent - key_row, dk, p.scale, lane);
  store_rows<T, D>(static_cast<T*>(p.dv) + out, kv_stride, item.extent - key_row, dv, 1.f, lane);
  if constexpr (counting) {
    flash::add_finite_scores(p.counts, finite);
    if (threadIdx.x == 0) flash::add_counts(p.counts, counted, visited);
  }
}

}  // namespace attnlab::mma_sm80
