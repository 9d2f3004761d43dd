#pragma once
// The tiled backward kernel (FlashAttention-2 style) behind padded, packed and
// varlen. A CTA owns two adjacent key tiles of one row and one KV head (128 keys,
// 8 warps of 16 keys): it keeps their K and V in shared memory and dK, dV in
// registers, and walks every (query head of the KV head's group, query tile
// visiting either key tile), i.e. the forward's tiles seen from the key side
// (query_tiles_visiting). Per query tile, in the warps of each key tile it visits:
//   Sᵀ = K·Qᵀ -> Pᵀ = exp(S·scale − LSE), masked -> dV += Pᵀ·dO -> dPᵀ = V·dOᵀ ->
//   dSᵀ = Pᵀ∘(dPᵀ − Δ) -> dK += dSᵀ·Q -> dQ += dS·K (fp32 atomics, see below).
// Each warp owns 16 keys for the first five steps (the forward's helpers apply
// with keys in the place of queries) and 16 queries for the dQ step, which reads
// dS back from shared memory. P is recomputed from the forward's LSE; nothing of
// size N² is stored.
//
// dQ: a query tile gets contributions from every key tile it visits, which
// belong to different CTAs. They are summed with fp32 atomic adds into a zeroed
// accumulator. The alternative, a second kernel that walks query tiles and
// recomputes S and dP for dQ alone, makes the backward 7 GEMMs per tile instead
// of 5; the atomics cost one fp32 read-modify-write of the tile's dQ in L2
// instead. The price: dQ's summation order varies from run to run, so dQ is not
// bit-reproducible (dK and dV are). Each CTA then counts its arrival at the
// query tile (dq_arrivals); the last of its key_tiles_visited to arrive scales
// the sums into dQ in the dtype while they are still in L2, and zeroes the
// accumulator and the count behind it. So no kernel clears the accumulator
// before the backward or converts it after (measured on uniform-64x512: the
// clearing and the conversion took a fifth of the backward's time).
//
// GQA: the group's query heads are looped inside the CTA, so dK and dV are summed
// over the group in registers and written once, without atomics.
#include "kernels/flash_kernel.cuh"

namespace attnlab::flash {

// Why pairs of key tiles: each query tile's Q, dO, LSE and Δ are loaded once for
// both, and its dQ gets one atomic addition per pair, half as many as with one key
// tile per CTA (the L2's atomic throughput bounds this kernel). The tiles stay the
// forward's kRows x kCols: a query tile that visits one tile of the pair leaves the
// other's warps idle for that step, so the tiles visited and counted are the forward's.
inline constexpr int kKeyTiles = backward_key_tiles;  // per CTA
inline constexpr int kPairKeys = kKeyTiles * kCols;
inline constexpr int kPairWarps = kPairKeys / 16;
inline constexpr int kPairThreads = kPairWarps * 32;

struct BackwardParams {
  LayoutView layout;
  const WorkItem* work;  // backward_work_list: (row, pair of key tiles) items
  int heads, kv_heads;
  float scale_log2;  // softmax scale times log2(e), as the forward
  const void* q;
  const void* k;
  const void* v;
  const void* d_o;
  const float* lse;    // the forward's, natural log, [position][head]
  const float* delta;  // Δ = rowsum(dO∘O), [position][head]
  float* dq_accum;     // zero on entry and on exit: receives dS·K (the scale is applied by finish_dq)
  int* dq_arrivals;    // zero on entry and on exit: [position][head], at each query tile's first position
  void* dq;            // dQ = scale·dS·K, in the dtype
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
  // K and V of the key tiles; two buffers each of Q and dO; dSᵀ (keys x queries); two QueryInfo.
  return (2 * kPairKeys * D + 4 * kRows * D + kPairKeys * kRows) * 2 + 2 * int(sizeof(QueryInfo));
}

// Copies 4 bytes global -> shared without the registers; src_bytes = 0 writes zeros.
__device__ __forceinline__ void copy_async_4(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_address(dst)), "l"(src), "r"(src_bytes)
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
// each of two operations half a sector (measured: L2 83.7% busy with 4-byte ones).
__device__ __forceinline__ void atomic_add_pair(float* at, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(at), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(at, a);
  atomicAdd(at + 1, b);
#endif
}

// dQ += dS·K over the visited key tiles of the pair (`halves`: bit h for tile h),
// added into the fp32 accumulator. Warp w takes queries (w % 4)·16.. and the
// columns (w / 4)·D/2..: `dq` is that corner (`stride` floats per row), rows at
// or past `rows_present` skipped. dS comes from the dSᵀ tile: ldmatrix.trans of
// keys x queries gives A fragments of queries x keys. K's rows are keys, the
// contraction: ldmatrix.trans gives B fragments, as V's in the forward's P·V.
// Eight accumulators at a time, added and dropped, keep the registers for dK and dV.
template <typename T, int D>
__device__ __forceinline__ void accumulate_dq(float* dq, std::int64_t stride, int rows_present, const T* ds_tile,
                                              const T* k_tile, unsigned halves, int warp, int lane) {
  constexpr int query_warps = kRows / 16, columns = D / kKeyTiles, per_pass = 2;  // 8-column blocks per pass
  const int query_chunk = warp % query_warps * 2, first_chunk = warp / query_warps * (columns / 8);
#pragma unroll
  for (int j = 0; j < columns / 8; j += per_pass) {
    float acc[per_pass][4] = {};
#pragma unroll
    for (int h = 0; h < kKeyTiles; ++h) {
      if (!(halves >> h & 1)) continue;
#pragma unroll
      for (int kk = h * kCols / 16; kk < (h + 1) * kCols / 16; ++kk) {
        unsigned a[4];
        load_fragments_transposed(
            a, ds_tile + swizzled<kRows>(kk * 16 + (lane & 7) + ((lane >> 4) << 3), query_chunk + ((lane >> 3) & 1)));
#pragma unroll
        for (int n = 0; n < per_pass; n += 2) {
          unsigned b[4];
          load_fragments_transposed(
              b, k_tile + swizzled<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), first_chunk + j + n + (lane >> 4)));
          mma_16x8x16<T>(acc[n], a, b[0], b[1]);
          mma_16x8x16<T>(acc[n + 1], a, b[2], b[3]);
        }
      }
    }
#pragma unroll
    for (int n = 0; n < per_pass; ++n)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int row = (lane >> 2) + 8 * i;
        if (row < rows_present)
          atomic_add_pair(dq + row * stride + (j + n) * 8 + ((lane & 3) << 1), acc[n][2 * i], acc[n][2 * i + 1]);
      }
  }
}

// The fence of the arrivals' release (before counting) and acquire (after the
// count shows the CTA last). A release-acquire fence is all the pattern needs;
// __threadfence() is a sequentially consistent one, and measured, it stalled each
// step by about a microsecond.
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;\n" ::: "memory"); }

// A CTA's arrival at a query tile's dQ, after a barrier that follows every
// thread's additions to it; one thread. Returns how many key tiles had arrived
// before. The fence makes the CTA's additions visible before the count (barrier
// then fence is cumulative in the PTX memory model, as in CUTLASS's semaphore).
__device__ __forceinline__ int arrive_at_dq(int* arrivals) {
  fence_acq_rel_gpu();
  return atomicAdd(arrivals, 1);
}

// dQ of `rows` rows of one query tile and head (`first`: its first row's
// position·heads + head), by the last key tile to arrive, after its fence: the
// sums scaled and rounded to the dtype, the accumulator zeroed behind them. All
// threads. Rows past the row's valid tokens were never added to: they give 0.
// The sums come from L2 by cp.async into shared memory (rows below kRows/2 at
// `upper`, the rest at `lower`: the step's Q and dO buffers, free by then), so
// that no register waits on them.
template <typename T, int D>
__device__ void finish_dq(const BackwardParams& p, std::int64_t first, int rows, float* upper, float* lower) {
  const std::int64_t stride = std::int64_t(p.heads) * D;
  float* const sums = p.dq_accum + first * D;
  T* const dq = static_cast<T*>(p.dq) + first * D;
  constexpr int chunks = D / 4;  // four floats each
  static_assert(kRows * chunks % kPairThreads == 0);
  static_assert(kRows / 2 * D * sizeof(float) == kRows * D * sizeof(T), "half the sums fill one Q buffer");
  const auto row_of = [](int n) { return (threadIdx.x + n * kPairThreads) / chunks; };
  const auto column_of = [](int n) { return (threadIdx.x + n * kPairThreads) % chunks * 4; };
  const auto staged = [&](int n) {
    return (row_of(n) < kRows / 2 ? upper : lower) + row_of(n) % (kRows / 2) * D + column_of(n);
  };
#pragma unroll
  for (int n = 0; n < kRows * chunks / kPairThreads; ++n)
    if (row_of(n) < rows) copy_async_16(staged(n), sums + row_of(n) * stride + column_of(n), 16);
  commit_copies();
  wait_copies<0>();  // each thread reads back only what it copied: no barrier
#pragma unroll
  for (int n = 0; n < kRows * chunks / kPairThreads; ++n)
    if (row_of(n) < rows) {
      const float4 sum = *reinterpret_cast<const float4*>(staged(n));
      const std::int64_t at = row_of(n) * stride + column_of(n);
      *reinterpret_cast<uint2*>(dq + at) =
          make_uint2(pack_pair<T>(sum.x * p.scale, sum.y * p.scale), pack_pair<T>(sum.z * p.scale, sum.w * p.scale));
      __stcg(reinterpret_cast<float4*>(sums + at), make_float4(0.f, 0.f, 0.f, 0.f));
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

// Where one CTA's data is: a (row, pair of key tiles) of the layout and one KV
// head, and the steps it walks: every (query head of the group, query tile
// visiting either key tile). The two tiles' query_tiles_visiting overlap or touch,
// so their union is one range.
template <typename T, int D>
struct KeyPairItem {
  int row, first_key_tile, k0, row_begin, extent, valid, kv_head, group, first_query_tile, query_tile_count;
  const T *k, *v;  // the pair's first key and value, of its KV head

  __device__ KeyPairItem(const BackwardParams& p, int index) {
    constexpr TileShape tile{kRows, kCols};
    const WorkItem w = p.work[index / p.kv_heads];
    kv_head = index % p.kv_heads;
    group = p.heads / p.kv_heads;
    row = w.row;
    first_key_tile = kKeyTiles * w.query_tile;  // the item's tile index counts pairs
    k0 = first_key_tile * kCols;
    row_begin = p.layout.row_start[row];
    extent = p.layout.row_start[row + 1] - row_begin;
    valid = p.layout.row_valid[row];
    TileRange visiting = query_tiles_visiting(p.layout, tile, row, first_key_tile);
    for (int t = 1; t < kKeyTiles && k0 + t * kCols < extent; ++t) {
      const TileRange next = query_tiles_visiting(p.layout, tile, row, first_key_tile + t);
      visiting = {min(visiting.first, next.first), max(visiting.end, next.end)};
    }
    first_query_tile = visiting.first;
    query_tile_count = visiting.count();
    k = static_cast<const T*>(p.k) + (std::int64_t(row_begin + k0) * p.kv_heads + kv_head) * D;
    v = static_cast<const T*>(p.v) + (std::int64_t(row_begin + k0) * p.kv_heads + kv_head) * D;
  }
  __device__ int steps() const { return group * query_tile_count; }
  __device__ int head_of(int step) const { return kv_head * group + step / query_tile_count; }
  __device__ int q0_of(int step) const { return (first_query_tile + step % query_tile_count) * kRows; }
  // Which tiles of the pair the step's query tile visits: bit 0 the first, bit 1 the second.
  __device__ unsigned halves(const LayoutView& lv, int step) const {
    const TileRange keys = key_tiles_visited(lv, TileShape{kRows, kCols}, row, q0_of(step) / kRows);
    unsigned h = 0;
    for (int t = 0; t < kKeyTiles; ++t)
      if (first_key_tile + t >= keys.first && first_key_tile + t < keys.end) h |= 1u << t;
    return h;
  }
  // The step's query tile and head in dq_arrivals, and the position·heads + head of its first row.
  __device__ std::int64_t dq_first(int step, int heads) const {
    return std::int64_t(row_begin + q0_of(step)) * heads + head_of(step);
  }
  // The step's query tile is finished when every pair holding a key tile it visits has arrived.
  __device__ int dq_arrivals_expected(const LayoutView& lv, int step) const {
    const TileRange keys = key_tiles_visited(lv, TileShape{kRows, kCols}, row, q0_of(step) / kRows);
    return keys.count() > 0 ? (keys.end - 1) / kKeyTiles - keys.first / kKeyTiles + 1 : 0;
  }
  __device__ int dq_rows(int step) const { return min(kRows, extent - q0_of(step)); }
};

// Starts loading one step's query tile into the given buffers: Q and dO rows,
// LSE and Δ of each query (cp.async; past the row's valid tokens, zeros), and
// the keys each query attends (from the layout: plain stores).
template <typename T, int D>
__device__ __forceinline__ void start_query_tile(const BackwardParams& p, const KeyPairItem<T, D>& item, int head,
                                                 int q0, T* q_tile, T* do_tile, QueryInfo& info) {
  const std::int64_t stride = std::int64_t(p.heads) * D;
  const std::int64_t first = std::int64_t(item.row_begin + q0) * p.heads + head;
  copy_tile_async<T, D, kRows, kPairThreads>(q_tile, static_cast<const T*>(p.q) + first * D, stride, item.valid - q0);
  copy_tile_async<T, D, kRows, kPairThreads>(do_tile, static_cast<const T*>(p.d_o) + first * D, stride, item.valid - q0);
  // Threads 0-63 take a query's LSE and attended keys, threads 64-127 its Δ.
  const int i = threadIdx.x % kRows;
  const bool present = q0 + i < item.valid;
  const std::int64_t at = first + std::int64_t(i) * p.heads;
  if (threadIdx.x < kRows) {
    copy_async_4(&info.lse[i], present ? p.lse + at : p.lse, present ? 4 : 0);
    const KeyRange keys = attended_keys(p.layout, item.row, q0 + i);  // empty past the row's valid tokens
    info.first_key[i] = keys.first;
    info.last_key[i] = keys.last;
  } else if (threadIdx.x < 2 * kRows) {
    copy_async_4(&info.delta[i], present ? p.delta + at : p.delta, present ? 4 : 0);
  }
}

// One CTA per (pair of key tiles, KV head), in backward_work_list's order (most
// work first). The next step's Q, dO, LSE and Δ are copied while this step computes.
//
// dQ arrivals lag: a step's additions are counted (arrive_at_dq) during the next
// step, once they have had time to land, and the count is read back a step later
// still, so that neither the fence nor the atomic stalls the CTA; the query tile
// whose count shows this CTA last is finished then (finish_dq), in the Q and dO
// buffers of the step in hand, which it no longer reads after dK.
template <typename T, int D>
__global__ void __launch_bounds__(kPairThreads, 2 / kKeyTiles) backward(const BackwardParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  T* const k_tile = reinterpret_cast<T*>(smem);  // both key tiles: kPairKeys rows
  T* const v_tile = k_tile + kPairKeys * D;
  T* const q_tiles = v_tile + kPairKeys * D;    // two buffers
  T* const do_tiles = q_tiles + 2 * kRows * D;  // two buffers
  T* const ds_tile = do_tiles + 2 * kRows * D;  // dSᵀ: keys x queries
  QueryInfo* const infos = reinterpret_cast<QueryInfo*>(ds_tile + kPairKeys * kRows);  // two buffers
  constexpr TileShape tile{kRows, kCols};
  const LayoutView& lv = p.layout;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned my_half = 1u << (warp / (kCols / 16));  // the key tile of the pair the warp's keys are in
  // A step's Q or dO buffer as finish_dq's fp32 staging, once the step no longer reads it.
  const auto staging = [](T* tiles, int buffer) { return reinterpret_cast<float*>(tiles + buffer * kRows * D); };

  const KeyPairItem<T, D> item(p, blockIdx.x);
  const std::int64_t kv_stride = std::int64_t(p.kv_heads) * D;
  const int steps = item.steps();
  copy_tile_async<T, D, kPairKeys, kPairThreads>(k_tile, item.k, kv_stride, item.valid - item.k0);
  copy_tile_async<T, D, kPairKeys, kPairThreads>(v_tile, item.v, kv_stride, item.valid - item.k0);
  commit_copies();
  if (steps > 0) start_query_tile<T, D>(p, item, item.head_of(0), item.q0_of(0), q_tiles, do_tiles, infos[0]);
  commit_copies();

  __shared__ int finish_step;  // the step whose query tile this CTA finishes now, or -1
  // Thread 0's, in shared memory to spare the registers: the arrival whose count is on its way.
  __shared__ int arrival_step, arrived_before;
  if (threadIdx.x == 0) arrival_step = -1;

  Output<D> dk = {}, dv = {};
  const int first_key_of_thread = item.k0 + warp * 16 + (lane >> 2);  // row position of the thread's first key
  CellCounts counted;
  long long visited = 0;
  for (int step = 0; step < steps; ++step) {
    const int buffer = step & 1;
    const int head = item.head_of(step), q0 = item.q0_of(step);
    const unsigned halves = item.halves(lv, step);
    if (step + 1 < steps)
      start_query_tile<T, D>(p, item, item.head_of(step + 1), item.q0_of(step + 1), q_tiles + (buffer ^ 1) * kRows * D,
                             do_tiles + (buffer ^ 1) * kRows * D, infos[buffer ^ 1]);
    commit_copies();   // possibly empty: keeps the group count the wait relies on
    wait_copies<1>();  // K, V and this step's copies landed; the next step's may be in flight
    __syncthreads();
    const T* const q_tile = q_tiles + buffer * kRows * D;
    const T* const do_tile = do_tiles + buffer * kRows * D;
    const QueryInfo& info = infos[buffer];
    if (p.counts && threadIdx.x == 0)
      for (int t = 0; t < kKeyTiles; ++t)
        if (halves >> t & 1) {
          counted += count_tile(lv, item.row, q0, item.k0 + t * kCols, tile);
          ++visited;
        }

    if (halves & my_half) {
      const int warp_k0 = item.k0 + (warp / (kCols / 16)) * kCols;  // the warp's key tile
      Scores s;
      scores_kq<T, D>(s, k_tile, q_tile, warp, lane);
      probabilities(s, info, first_key_of_thread, tile_needs_mask(lv, item.row, q0, warp_k0, tile), p.scale_log2,
                    lane);
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
    }

    if (threadIdx.x == 0) {
      finish_step = -1;
      if (arrival_step >= 0 && arrived_before + 1 == item.dq_arrivals_expected(lv, arrival_step)) {
        finish_step = arrival_step;
        fence_acq_rel_gpu();  // the other CTAs' additions are read after their arrivals
      }
      arrival_step = -1;
      if (step > 0 && item.halves(lv, step - 1)) {
        arrival_step = step - 1;
        arrived_before = arrive_at_dq(p.dq_arrivals + item.dq_first(step - 1, p.heads));
      }
    }
    __syncthreads();  // every warp's rows of dSᵀ staged, finish_step set
    if (finish_step >= 0)
      finish_dq<T, D>(p, item.dq_first(finish_step, p.heads), item.dq_rows(finish_step), staging(q_tiles, buffer),
                      staging(do_tiles, buffer));
    if (halves) {
      const int dq_row = q0 + warp % (kRows / 16) * 16;
      const int dq_column = warp / (kRows / 16) * (D / kKeyTiles);
      accumulate_dq<T, D>(p.dq_accum + (std::int64_t(item.row_begin + dq_row) * p.heads + head) * D + dq_column,
                          std::int64_t(p.heads) * D, item.valid - dq_row, ds_tile, k_tile, halves, warp, lane);
    }
    __syncthreads();  // dSᵀ and this step's buffers are free for the step after next
  }
  wait_copies<0>();
  if (steps > 0) {  // the count on its way, then the last step's arrival
    __shared__ int last_finish;
    if (threadIdx.x == 0) {
      finish_step = arrival_step >= 0 && arrived_before + 1 == item.dq_arrivals_expected(lv, arrival_step)
                        ? arrival_step : -1;
      last_finish = item.halves(lv, steps - 1) &&
                    arrive_at_dq(p.dq_arrivals + item.dq_first(steps - 1, p.heads)) + 1 ==
                        item.dq_arrivals_expected(lv, steps - 1)
                        ? steps - 1 : -1;
      if (finish_step >= 0 || last_finish >= 0) fence_acq_rel_gpu();
    }
    __syncthreads();
    const auto finish = [&](int f) {
      if (f >= 0)
        finish_dq<T, D>(p, item.dq_first(f, p.heads), item.dq_rows(f), staging(q_tiles, (steps - 1) & 1),
                        staging(do_tiles, (steps - 1) & 1));
    };
    finish(finish_step);
    finish(last_finish);  // each thread stages and reads back the same slots in both: no barrier between
  }

  // dK, dV of every key of the pair inside the row, padding keys too (zeros there).
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
