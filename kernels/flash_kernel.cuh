#pragma once
// The tiled forward kernel (FlashAttention-2 style) behind padded, packed and
// varlen. The layout decides everything layout-specific: which row and query
// tile a CTA owns (the work list), which key tiles it visits (key_tiles_visited)
// and which cells take part (attended_keys, with tile_needs_mask as the fast
// path; both core/layout.hpp, tested equal to cell_kind cell by cell). The math is the same for every layout:
//   load K/V tile (cp.async, double-buffered) -> S = Q·Kᵀ (mma.sync) -> mask ->
//   online softmax (exp2, running max and sum) -> O += P·V (P stays in registers).
// One CTA = 4 warps = 64 query rows of one head at a time; each warp owns 16 rows.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/layout.hpp"
#include "kernels/shared_address.cuh"
#include "kernels/work_list.hpp"

namespace attnlab::flash {

inline constexpr int kRows = 64;    // query rows per CTA (kernel_tile(FlashKernel::mma_sm80).rows)
inline constexpr int kCols = 64;    // keys per tile (kernel_tile(FlashKernel::mma_sm80).cols)
inline constexpr int kWarps = kRows / 16;
inline constexpr int kThreads = kWarps * 32;

// Counters the counting run adds into: visited tiles, then cells indexed by CellKind.
struct DeviceCounts {
  unsigned long long visited_tiles;
  unsigned long long cells[computed_kind_count];
};

struct Params {
  LayoutView layout;
  const WorkItem* work;
  int heads, kv_heads;
  float scale_log2;  // softmax scale times log2(e): scores go straight into exp2
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;
  DeviceCounts* counts;  // null unless counting
};

template <int D>
constexpr int smem_bytes() {
  return (2 * kRows + 4 * kCols) * D * 2;  // two Q, two K and two V buffers, 16-bit elements
}

// ---- small wrappers named after what they do ----------------------------------

// 16-byte rows of 8 elements; chunk c of row r sits at chunk c ^ (r & 7), so the
// 8 rows an ldmatrix phase reads fall in 8 different bank groups.
template <int D>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

// Copies 16 bytes global -> shared without the registers; src_bytes = 0 writes zeros.
__device__ __forceinline__ void copy_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

__device__ __forceinline__ void load_fragments(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}
__device__ __forceinline__ void load_fragments_transposed(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}

// acc (16x8 fp32) += a (16x16) · b (16x8) on the tensor cores.
template <typename T>
__device__ __forceinline__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

template <typename T>
__device__ __forceinline__ unsigned pack_pair(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&v);
  }
}

// Starts copying `rows` rows of one head (row stride `stride` elements), 16 bytes
// (a chunk) per copy, `threads` threads sharing them, into shared memory at
// destination(row, chunk); rows at or past `rows_present` are filled with zeros instead.
template <typename T, int D, int rows, int threads, typename Destination>
__device__ __forceinline__ void copy_rows_async(Destination destination, const T* first_row, std::int64_t stride,
                                                int rows_present) {
  constexpr int chunks = D / 8;
  static_assert(rows * chunks % threads == 0);
#pragma unroll
  for (int n = 0; n < rows * chunks / threads; ++n) {
    const int i = threadIdx.x + n * threads;
    const int row = i / chunks, chunk = i % chunks;
    const bool present = row < rows_present;
    const T* src = present ? first_row + row * stride + chunk * 8 : first_row;
    copy_async_16(destination(row, chunk), src, present ? 16 : 0);
  }
}

// The same into this kernel's swizzled tile, by the CTA's threads.
template <typename T, int D, int rows>
__device__ __forceinline__ void copy_tile_async(T* tile, const T* first_row, std::int64_t stride, int rows_present) {
  copy_rows_async<T, D, rows, kThreads>([tile](int row, int chunk) { return tile + swizzled<D>(row, chunk); },
                                        first_row, stride, rows_present);
}

// 2^x on the special-function unit; exp2(-inf) = 0, which the masking relies on.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

__device__ __forceinline__ void add_counts(DeviceCounts* to, const CellCounts& c, long long tiles) {
  atomicAdd(&to->visited_tiles, static_cast<unsigned long long>(tiles));
  for (int kind = 0; kind < computed_kind_count; ++kind)
    atomicAdd(&to->cells[kind], static_cast<unsigned long long>(c.n[kind]));
}

// ---- the algorithm's steps, for one warp's 16 query rows -------------------------
//
// Thread layout of an mma.sync accumulator (16x8): lane holds rows lane/4 and
// lane/4 + 8, columns 2·(lane%4) and 2·(lane%4) + 1. s[j][e] below is key column
// 8j + 2·(lane%4) + (e&1) of query row lane/4 + 8·(e>>1) of the warp's 16 rows.

using Scores = float[kCols / 8][4];               // S or P of the warp's rows against one key tile
template <int D> using Output = float[D / 8][4];  // the warp's O accumulator
template <int D> using QueryFragments = unsigned[D / 16][4];
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
  for (int j = 0; j < kCols / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) s[j][e] = 0.f;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
    for (int j = 0; j < kCols / 8; j += 2) {
      unsigned b[4];
      load_fragments(b, k_tile + swizzled<D>(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)));
      mma_16x8x16<T>(s[j], q[kk], b[0], b[1]);
      mma_16x8x16<T>(s[j + 1], q[kk], b[2], b[3]);
    }
  }
}

// Cells that are not attended (causal_masked, window_masked, padding) get -inf:
// each query row attends one range of keys, attended_keys (core/layout.hpp).
__device__ __forceinline__ void mask_scores(Scores& s, const KeyRange (&keys)[2], int k0, int lane) {
#pragma unroll
  for (int j = 0; j < kCols / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = k0 + j * 8 + ((lane & 3) << 1) + (e & 1);
      if (key < keys[e >> 1].first || key > keys[e >> 1].last) s[j][e] = -INFINITY;
    }
}

// Online softmax over one more key tile: new running max, rescale what was summed
// and accumulated so far, and turn s into P = exp2(S·c - max·c) (c = scale·log2 e).
template <int D>
__device__ __forceinline__ void online_softmax(Scores& s, Output<D>& o, float (&row_max)[2], float (&row_sum)[2],
                                               float scale_log2) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kCols / 8; ++j) tile_max = fmaxf(tile_max, fmaxf(s[j][2 * i], s[j][2 * i + 1]));
    const float new_max = fmaxf(row_max[i], quad_max(tile_max));
    // A row with nothing visible yet keeps max -inf; subtract 0 then, so exp2(-inf) = 0, not NaN.
    const float max_scaled = new_max == -INFINITY ? 0.f : new_max * scale_log2;
    const float rescale = fast_exp2(row_max[i] * scale_log2 - max_scaled);
    row_max[i] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kCols / 8; ++j) {
      s[j][2 * i] = fast_exp2(fmaf(s[j][2 * i], scale_log2, -max_scaled));
      s[j][2 * i + 1] = fast_exp2(fmaf(s[j][2 * i + 1], scale_log2, -max_scaled));
      sum += s[j][2 * i] + s[j][2 * i + 1];
    }
    row_sum[i] = row_sum[i] * rescale + sum;
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      o[j][2 * i] *= rescale;
      o[j][2 * i + 1] *= rescale;
    }
  }
}

// P as the A operand of the next mma, in 16 bits: the accumulator layout of two
// adjacent 8-key blocks is exactly the A fragment of one 16-key step.
template <typename T>
__device__ __forceinline__ void probabilities_as_a(ProbabilityFragments& pf, const Scores& s) {
#pragma unroll
  for (int kk = 0; kk < kCols / 16; ++kk) {
    pf[kk][0] = pack_pair<T>(s[2 * kk][0], s[2 * kk][1]);
    pf[kk][1] = pack_pair<T>(s[2 * kk][2], s[2 * kk][3]);
    pf[kk][2] = pack_pair<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
    pf[kk][3] = pack_pair<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
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
      load_fragments_transposed(b, v_tile + swizzled<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), j + (lane >> 4)));
      mma_16x8x16<T>(o[j], pf[kk], b[0], b[1]);
      mma_16x8x16<T>(o[j + 1], pf[kk], b[2], b[3]);
    }
  }
}

// ---- the kernel ---------------------------------------------------------------

// Where one work item's data is: a (row, query tile) of the layout and one head.
template <typename T, int D>
struct Item {
  int row, q0, row_begin, extent, valid, head;
  TileRange key_tiles;  // the key tiles it visits
  const T *q, *k, *v;   // the item's first query row, the first key and value of its first key tile, of its head

  __device__ Item(const Params& p, int index) {
    const WorkItem w = p.work[index / p.heads];
    head = index % p.heads;
    const int kv_head = head / (p.heads / p.kv_heads);
    row = w.row;
    q0 = w.query_tile * kRows;
    row_begin = p.layout.row_start[row];
    extent = p.layout.row_start[row + 1] - row_begin;
    valid = p.layout.row_valid[row];
    key_tiles = key_tiles_visited(p.layout, TileShape{kRows, kCols}, row, w.query_tile);
    q = static_cast<const T*>(p.q) + (std::int64_t(row_begin + q0) * p.heads + head) * D;
    const std::int64_t first_key = row_begin + key_tiles.first * kCols;
    k = static_cast<const T*>(p.k) + (first_key * p.kv_heads + kv_head) * D;
    v = static_cast<const T*>(p.v) + (first_key * p.kv_heads + kv_head) * D;
  }
  // Keys of the row present (not padding) from the first visited key onwards.
  __device__ int keys_present() const { return valid - key_tiles.first * kCols; }
};

// O /= row sum, LSE = ln(sum) + max·scale; a row with no attended key (a padding
// query) gets O = 0 and LSE = -inf. The warp stages its 16 output rows in its own
// rows of the item's Q tile (read by no other warp, refilled only after later
// barriers), then stores them 16 bytes per thread.
template <typename T, int D>
__device__ __forceinline__ void store_output(const Params& p, const Item<T, D>& item, const Output<D>& o,
                                             const float (&row_max)[2], const float (&row_sum)[2], T* q_tile,
                                             int warp, int lane) {
  const float ln2 = 0.6931471805599453f;
  float inv_sum[2], lse[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float sum = quad_sum(row_sum[i]);
    inv_sum[i] = sum > 0.f ? 1.f / sum : 0.f;
    lse[i] = sum > 0.f ? (row_max[i] * p.scale_log2 + log2f(sum)) * ln2 : -INFINITY;
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = warp * 16 + (lane >> 2) + 8 * i;
      *reinterpret_cast<unsigned*>(q_tile + swizzled<D>(row, j) + ((lane & 3) << 1)) =
          pack_pair<T>(o[j][2 * i] * inv_sum[i], o[j][2 * i + 1] * inv_sum[i]);
    }
  __syncwarp();
  constexpr int chunks = D / 8;
#pragma unroll
  for (int n = 0; n < 16 * chunks / 32; ++n) {
    const int i = lane + 32 * n;
    const int row = warp * 16 + i / chunks, chunk = i % chunks;
    if (item.q0 + row < item.extent)
      *reinterpret_cast<uint4*>(static_cast<T*>(p.o) +
                                (std::int64_t(item.row_begin + item.q0 + row) * p.heads + item.head) * D + chunk * 8) =
          *reinterpret_cast<const uint4*>(q_tile + swizzled<D>(row, chunk));
  }
  if ((lane & 3) == 0) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int q = item.q0 + warp * 16 + (lane >> 2) + 8 * i;
      if (q < item.extent) p.lse[std::int64_t(item.row_begin + q) * p.heads + item.head] = lse[i];
    }
  }
}

// A persistent grid: CTA b takes items b, b + gridDim.x, ... of the work list
// times the heads (index = item * heads + head: the CTAs running at one time work
// on neighbouring tiles of the same rows and share their K/V in L2). While a CTA
// works on the last key tile of one item, the Q and first K/V tiles of its next
// item are already on their way, so short documents pay no load latency per item.
template <typename T, int D>
__global__ void __launch_bounds__(kThreads, 2) forward(const Params p, int total_items) {
  extern __shared__ __align__(128) unsigned char smem[];
  T* const q_tiles = reinterpret_cast<T*>(smem);    // two buffers: this item's, the next item's
  T* const k_tiles = q_tiles + 2 * kRows * D;       // two buffers
  T* const v_tiles = k_tiles + 2 * kCols * D;       // two buffers
  constexpr TileShape tile{kRows, kCols};
  const LayoutView& lv = p.layout;
  const std::int64_t q_stride = std::int64_t(p.heads) * D, kv_stride = std::int64_t(p.kv_heads) * D;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  int index = blockIdx.x;
  if (index >= total_items) return;
  Item<T, D> item(p, index);
  // Only valid tokens are read: padding and positions past the row load as zeros.
  copy_tile_async<T, D, kRows>(q_tiles, item.q, q_stride, item.valid - item.q0);
  copy_tile_async<T, D, kCols>(k_tiles, item.k, kv_stride, item.keys_present());
  commit_copies();
  copy_tile_async<T, D, kCols>(v_tiles, item.v, kv_stride, item.keys_present());
  commit_copies();

  int q_buffer = 0;    // which Q buffer holds this item's queries
  int tile_count = 0;  // key tiles done by this CTA: picks the K/V buffer
  CellCounts counted;
  long long visited = 0;
  for (;;) {
    const int next_index = index + gridDim.x;
    const bool has_next = next_index < total_items;
    // The next item's coordinates are read now so its loads can start during this item's last tile.
    const Item<T, D> next = has_next ? Item<T, D>(p, next_index) : item;
    T* const q_tile = q_tiles + q_buffer * kRows * D;

    KeyRange keys[2];  // the keys each of this thread's two query rows attends
#pragma unroll
    for (int i = 0; i < 2; ++i) keys[i] = attended_keys(lv, item.row, item.q0 + warp * 16 + (lane >> 2) + 8 * i);

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
        copy_tile_async<T, D, kRows>(q_tiles + (q_buffer ^ 1) * kRows * D, next.q, q_stride, next.valid - next.q0);
        copy_tile_async<T, D, kCols>(k_tiles + other_buffer * kCols * D, next.k, kv_stride, next.keys_present());
      }
      commit_copies();  // possibly empty: keeps the group count the waits rely on

      Scores s;
      scores_qk<T, D>(s, q, k_tiles + this_buffer * kCols * D, lane);
      if (tile_needs_mask(lv, item.row, item.q0, k0, tile)) mask_scores(s, keys, k0, lane);
      if (p.counts && threadIdx.x == 0) {
        counted += count_tile(lv, item.row, item.q0, k0, tile);
        ++visited;
      }
      online_softmax<D>(s, o, row_max, row_sum, p.scale_log2);
      ProbabilityFragments pf;
      probabilities_as_a<T>(pf, s);

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
    index = next_index;
    item = next;
    q_buffer ^= 1;
  }
  wait_copies<0>();
  if (p.counts && threadIdx.x == 0) add_counts(p.counts, counted, visited);
}

}  // namespace attnlab::flash
