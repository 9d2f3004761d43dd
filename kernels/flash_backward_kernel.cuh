#pragma once
// The tiled backward kernel (FlashAttention-2 style) behind padded, packed and
// varlen. A CTA owns one key tile of one row and one KV head: it keeps K_j and
// V_j in shared memory and dK_j, dV_j in registers, and walks every (query head
// of the KV head's group, query tile visiting key tile j), i.e. the forward's
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
#include "kernels/flash_kernel.cuh"

namespace attnlab::flash {

// One key tile per CTA: with square tiles a row has as many key tiles as query
// tiles, so the (row, tile) items of the backward's work list
// (flash_backward_work_list: heaviest key tiles of a row first) are key tiles.
static_assert(kRows == kCols, "the backward reads its work list's (row, tile) items as key tiles");

struct BackwardParams {
  LayoutView layout;
  const WorkItem* work;  // (row, tile) items: the tile is read as a key tile
  int heads, kv_heads;
  float scale_log2;  // softmax scale times log2(e), as the forward
  const void* q;
  const void* k;
  const void* v;
  const void* d_o;
  const float* lse;    // the forward's, natural log, [position][head]
  const float* delta;  // Δ = rowsum(dO∘O), [position][head]
  float* dq_accum;     // zeroed; receives dS·K (the scale is applied on conversion)
  void* dk;
  void* dv;
  float scale;           // the softmax scale: dK = scale·dSᵀ·Q
  DeviceCounts* counts;  // null unless counting
};

// What the CTA knows of each query of the query tile in hand: its LSE (natural
// log) and Δ, and the keys it attends (attended_keys, row positions).
struct QueryInfo {
  float lse[kRows];
  float delta[kRows];
  int first_key[kRows];
  int last_key[kRows];
};

template <int D>
constexpr int backward_smem_bytes() {
  // K and V of the key tile; two buffers each of Q and dO; dSᵀ (keys x queries); two QueryInfo.
  return (2 * kCols * D + 4 * kRows * D + kCols * kRows) * 2 + 2 * int(sizeof(QueryInfo));
}

// Copies 4 bytes global -> shared without the registers; src_bytes = 0 writes zeros.
__device__ __forceinline__ void copy_async_4(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(src_bytes)
               : "memory");
}

// ---- the algorithm's steps, for one warp ------------------------------------------
//
// In Sᵀ, Pᵀ, dPᵀ and dSᵀ (type Scores) the warp's 16 rows are keys and the 64
// columns are the queries of the tile: s[j][e] is key warp·16 + lane/4 + 8·(e>>1)
// against query 8j + 2·(lane%4) + (e&1) of the tile (the mma accumulator layout).

// The tile column of element (j, e) of a thread's Scores.
__device__ __forceinline__ int query_column(int j, int e, int lane) { return j * 8 + ((lane & 3) << 1) + (e & 1); }

// Sᵀ = K·Qᵀ for the warp's 16 keys (and dPᵀ = V·dOᵀ the same way): the forward's
// S = Q·Kᵀ (scores_qk) with K in the place of Q. The warp's K fragments are read
// from shared memory one 16-wide slice at a time, not all held in registers as
// the forward holds Q's, and the slices are a loop, not unrolled, so the
// compiler keeps no per-slice addresses: the registers go to the dK and dV
// accumulators (unrolled, ptxas spilled at head dim 128).
template <typename T, int D>
__device__ __forceinline__ void scores_kq(Scores& s, const T* k_tile, const T* q_tile, int warp, int lane) {
#pragma unroll
  for (int j = 0; j < kRows / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) s[j][e] = 0.f;
#pragma unroll 1
  for (int kk = 0; kk < D / 16; ++kk) {
    unsigned a[4];
    load_fragments(a, k_tile + swizzled<D>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
#pragma unroll
    for (int j = 0; j < kRows / 8; j += 2) {
      unsigned b[4];
      load_fragments(b, q_tile + swizzled<D>(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)));
      mma_16x8x16<T>(s[j], a, b[0], b[1]);
      mma_16x8x16<T>(s[j + 1], a, b[2], b[3]);
    }
  }
}

// Pᵀ = exp(S·scale − LSE) in place. In a tile that needs a mask, a cell outside
// its query's attended keys gets 0 (a padding query has none: its LSE of -inf
// never reaches the result).
__device__ __forceinline__ void probabilities(Scores& s, const QueryInfo& info, int first_key_of_thread, bool masked,
                                              float scale_log2, int lane) {
  constexpr float log2e = 1.4426950408889634f;
#pragma unroll
  for (int j = 0; j < kCols / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int c = query_column(j, e, lane);
      const float p = fast_exp2(fmaf(s[j][e], scale_log2, -info.lse[c] * log2e));
      const int key = first_key_of_thread + 8 * (e >> 1);
      s[j][e] = masked && (key < info.first_key[c] || key > info.last_key[c]) ? 0.f : p;
    }
}

// dSᵀ = Pᵀ∘(dPᵀ − Δ), in place of dPᵀ (P in fp32, as computed).
__device__ __forceinline__ void score_gradients(Scores& dp, const Scores& p, const QueryInfo& info, int lane) {
#pragma unroll
  for (int j = 0; j < kCols / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) dp[j][e] = p[j][e] * (dp[j][e] - info.delta[query_column(j, e, lane)]);
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
          pack_pair<T>(ds[j][2 * i], ds[j][2 * i + 1]);
    }
}

// Adds two adjacent floats (8-byte aligned) to global memory. The dQ sums are bound
// by the L2's atomic throughput: on sm_90 one 8-byte reduction lets the four lanes
// of a row fill one 32-byte sector with one operation, where two 4-byte ones leave
// each of two operations half a sector. Measured on the H100 (uniform-64x512 and
// uniform-16x2048, bf16, d128): 1994 -> 1532 µs and 5512 -> 3891 µs.
__device__ __forceinline__ void atomic_add_pair(float* at, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(at), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(at, a);
  atomicAdd(at + 1, b);
#endif
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
    load_fragments_transposed(a[kk], ds_tile + swizzled<kRows>(kk * 16 + (lane & 7) + ((lane >> 4) << 3),
                                                               warp * 2 + ((lane >> 3) & 1)));
#pragma unroll
  for (int j = 0; j < D / 8; j += 2) {
    float acc[2][4] = {};
#pragma unroll
    for (int kk = 0; kk < kCols / 16; ++kk) {
      unsigned b[4];
      load_fragments_transposed(b, k_tile + swizzled<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), j + (lane >> 4)));
      mma_16x8x16<T>(acc[0], a[kk], b[0], b[1]);
      mma_16x8x16<T>(acc[1], a[kk], b[2], b[3]);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int row = (lane >> 2) + 8 * i;
        if (row < rows_present)
          atomic_add_pair(dq + row * stride + (j + h) * 8 + ((lane & 3) << 1), acc[h][2 * i], acc[h][2 * i + 1]);
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
            pack_pair<T>(acc[j][2 * i] * factor, acc[j][2 * i + 1] * factor);
    }
}

// ---- the kernel ---------------------------------------------------------------

// Where one CTA's data is: a (row, key tile) of the layout and one KV head, and
// the steps it walks: every (query head of the group, query tile visiting the key
// tile), at the tile of `rows` queries x `cols` keys (the Hopper backward's too).
template <typename T, int D, int rows = kRows, int cols = kCols>
struct KeyTileItem {
  int row, k0, row_begin, extent, valid, kv_head, group, first_query_tile, query_tile_count;
  const T *k, *v;  // the tile's first key and value, of its KV head

  __device__ KeyTileItem(const BackwardParams& p, int index) {
    const WorkItem w = p.work[index / p.kv_heads];
    kv_head = index % p.kv_heads;
    group = p.heads / p.kv_heads;
    row = w.row;
    k0 = w.query_tile * cols;  // the item's tile, read as a key tile
    row_begin = p.layout.row_start[row];
    extent = p.layout.row_start[row + 1] - row_begin;
    valid = p.layout.row_valid[row];
    const TileRange visiting = query_tiles_visiting(p.layout, TileShape{rows, cols}, row, w.query_tile);
    first_query_tile = visiting.first;
    query_tile_count = visiting.count();
    k = static_cast<const T*>(p.k) + (std::int64_t(row_begin + k0) * p.kv_heads + kv_head) * D;
    v = static_cast<const T*>(p.v) + (std::int64_t(row_begin + k0) * p.kv_heads + kv_head) * D;
  }
  __device__ int steps() const { return group * query_tile_count; }
  __device__ int head_of(int step) const { return kv_head * group + step / query_tile_count; }
  __device__ int q0_of(int step) const { return (first_query_tile + step % query_tile_count) * rows; }
};

// Starts loading, for the kRows queries from q0 of one head, the LSE and Δ of
// each (cp.async; past the row's valid tokens, zeros) and the keys each attends
// (from the layout: plain stores). Threads 0-63 take a query's LSE and attended
// keys, threads 64-127 its Δ; `thread` is the caller's number among 128 or more.
__device__ __forceinline__ void start_query_info(const BackwardParams& p, int row, int row_begin, int valid, int head,
                                                 int q0, QueryInfo& info, int thread) {
  const int i = thread % kRows;
  const bool present = q0 + i < valid;
  const std::int64_t at = (std::int64_t(row_begin + q0) + i) * p.heads + head;
  if (thread < kRows) {
    copy_async_4(&info.lse[i], present ? p.lse + at : p.lse, present ? 4 : 0);
    const KeyRange keys = attended_keys(p.layout, row, q0 + i);  // empty past the row's valid tokens
    info.first_key[i] = keys.first;
    info.last_key[i] = keys.last;
  } else if (thread < 2 * kRows) {
    copy_async_4(&info.delta[i], present ? p.delta + at : p.delta, present ? 4 : 0);
  }
}

// Starts loading one step's query tile into the given buffers: Q and dO rows
// (zeros past the row's valid tokens) and the tile's QueryInfo.
template <typename T, int D>
__device__ __forceinline__ void start_query_tile(const BackwardParams& p, const KeyTileItem<T, D>& item, int head, int q0,
                                                 T* q_tile, T* do_tile, QueryInfo& info) {
  const std::int64_t stride = std::int64_t(p.heads) * D;
  const std::int64_t first = std::int64_t(item.row_begin + q0) * p.heads + head;
  copy_tile_async<T, D, kRows>(q_tile, static_cast<const T*>(p.q) + first * D, stride, item.valid - q0);
  copy_tile_async<T, D, kRows>(do_tile, static_cast<const T*>(p.d_o) + first * D, stride, item.valid - q0);
  start_query_info(p, item.row, item.row_begin, item.valid, head, q0, info, threadIdx.x);
}

// One CTA per (key tile, KV head), in the backward's work-list order (heaviest
// rows first, a row's most-visited key tiles first). The next step's Q, dO, LSE
// and Δ are copied while this step computes.
template <typename T, int D>
__global__ void __launch_bounds__(kThreads, 2) backward(const BackwardParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  T* const k_tile = reinterpret_cast<T*>(smem);
  T* const v_tile = k_tile + kCols * D;
  T* const q_tiles = v_tile + kCols * D;        // two buffers
  T* const do_tiles = q_tiles + 2 * kRows * D;  // two buffers
  T* const ds_tile = do_tiles + 2 * kRows * D;  // dSᵀ: keys x queries
  QueryInfo* const infos = reinterpret_cast<QueryInfo*>(ds_tile + kCols * kRows);  // two buffers
  constexpr TileShape tile{kRows, kCols};
  const LayoutView& lv = p.layout;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  const KeyTileItem<T, D> item(p, blockIdx.x);
  const std::int64_t kv_stride = std::int64_t(p.kv_heads) * D;
  const int steps = item.steps();
  copy_tile_async<T, D, kCols>(k_tile, item.k, kv_stride, item.valid - item.k0);
  copy_tile_async<T, D, kCols>(v_tile, item.v, kv_stride, item.valid - item.k0);
  commit_copies();
  if (steps > 0) start_query_tile<T, D>(p, item, item.head_of(0), item.q0_of(0), q_tiles, do_tiles, infos[0]);
  commit_copies();

  Output<D> dk = {}, dv = {};
  const int first_key_of_thread = item.k0 + warp * 16 + (lane >> 2);  // row position of the thread's first key
  CellCounts counted;
  long long visited = 0;
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
    if (p.counts && threadIdx.x == 0) {
      counted += count_tile(lv, item.row, q0, item.k0, tile);
      ++visited;
    }

    Scores s;
    scores_kq<T, D>(s, k_tile, q_tile, warp, lane);
    probabilities(s, info, first_key_of_thread, tile_needs_mask(lv, item.row, q0, item.k0, tile), p.scale_log2, lane);
    ProbabilityFragments pf;
    probabilities_as_a<T>(pf, s);
    accumulate_pv<T, D>(dv, pf, do_tile, lane);  // dV += Pᵀ·dO

    Scores ds;
    scores_kq<T, D>(ds, v_tile, do_tile, warp, lane);  // dPᵀ = V·dOᵀ
    score_gradients(ds, s, info, lane);
    stage_score_gradients<T>(ds_tile, ds, warp, lane);
    ProbabilityFragments dsf;
    probabilities_as_a<T>(dsf, ds);
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
  if (p.counts && threadIdx.x == 0) add_counts(p.counts, counted, visited);
}

// One launcher per (dtype, head dim), defined in flash_backward_launch.cuh and
// instantiated in flash_backward_bf16.cu and flash_backward_fp16.cu.
template <typename T, int D>
void launch_backward(const BackwardParams& params, int work_items);

}  // namespace attnlab::flash
