#pragma once
// The tiled forward kernel (FlashAttention-2 style) behind padded, packed and
// varlen. The layout decides everything layout-specific: which row and query
// tile a CTA owns (the work list), how many key tiles it visits
// (key_tiles_visited) and which cells take part (cell_kind, with tile_needs_mask
// as the fast path). The math is the same for every layout:
//   load K/V tile (cp.async, double-buffered) -> S = Q·Kᵀ (mma.sync) -> mask ->
//   online softmax (exp2, running max and sum) -> O += P·V (P stays in registers).
// One CTA = 4 warps = 64 query rows of one head; each warp owns 16 rows.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/layout.hpp"
#include "kernels/tile_mask.hpp"
#include "kernels/work_list.hpp"

namespace attnlab::flash {

inline constexpr int kRows = 64;    // query rows per CTA (flash_tile.rows)
inline constexpr int kCols = 64;    // keys per tile (flash_tile.cols)
inline constexpr int kWarps = kRows / 16;
inline constexpr int kThreads = kWarps * 32;

// Counters the counting run adds into: visited tiles, then cells by kind.
struct DeviceCounts {
  unsigned long long visited_tiles, useful, causal_masked, padding, bleed;
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
  return (kRows + 4 * kCols) * D * 2;  // Q, two K and two V buffers, 16-bit elements
}

// ---- small wrappers named after what they do ----------------------------------

// 16-byte rows of 8 elements; chunk c of row r sits at chunk c ^ (r & 7), so the
// 8 rows an ldmatrix phase reads fall in 8 different bank groups.
template <int D>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Copies 16 bytes global -> shared without the registers; src_bytes = 0 writes zeros.
__device__ __forceinline__ void copy_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
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
               : "r"(smem_address(p)));
}
__device__ __forceinline__ void load_fragments_transposed(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(p)));
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

// Starts copying `rows` rows of one head (row stride `stride` elements) into a
// swizzled tile; rows at or past `rows_present` are filled with zeros instead.
template <typename T, int D, int rows>
__device__ __forceinline__ void copy_tile_async(T* tile, const T* first_row, std::int64_t stride, int rows_present) {
  constexpr int chunks = D / 8;
  static_assert(rows * chunks % kThreads == 0);
#pragma unroll
  for (int n = 0; n < rows * chunks / kThreads; ++n) {
    const int i = threadIdx.x + n * kThreads;
    const int row = i / chunks, chunk = i % chunks;
    const bool present = row < rows_present;
    const T* src = present ? first_row + row * stride + chunk * 8 : first_row;
    copy_async_16(tile + swizzled<D>(row, chunk), src, present ? 16 : 0);
  }
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
  atomicAdd(&to->useful, static_cast<unsigned long long>(c.useful));
  atomicAdd(&to->causal_masked, static_cast<unsigned long long>(c.causal_masked));
  atomicAdd(&to->padding, static_cast<unsigned long long>(c.padding));
  atomicAdd(&to->bleed, static_cast<unsigned long long>(c.bleed));
}

// ---- the kernel ---------------------------------------------------------------

// Thread layout of an mma.sync accumulator (16x8): lane holds rows lane/4 and
// lane/4 + 8, columns 2·(lane%4) and 2·(lane%4) + 1. S[j][e] below is key column
// 8j + 2·(lane%4) + (e&1) of query row lane/4 + 8·(e>>1) of the warp's 16 rows.
template <typename T, int D>
__global__ void __launch_bounds__(kThreads) forward(const Params p) {
  extern __shared__ __align__(128) unsigned char smem[];
  T* const q_tile = reinterpret_cast<T*>(smem);
  T* const k_tiles = q_tile + kRows * D;    // two buffers
  T* const v_tiles = k_tiles + 2 * kCols * D;  // two buffers

  const LayoutView& lv = p.layout;
  constexpr TileShape tile{kRows, kCols};
  const WorkItem item = p.work[blockIdx.x / p.heads];
  const int head = blockIdx.x % p.heads;
  const int kv_head = head / (p.heads / p.kv_heads);
  const int r = item.row, q0 = item.query_tile * kRows;
  const int row_begin = lv.row_start[r];
  const int extent = lv.row_start[r + 1] - row_begin;
  const int valid = lv.row_valid[r];
  const int key_tiles = key_tiles_visited(lv, tile, r, item.query_tile);

  const std::int64_t q_stride = std::int64_t(p.heads) * D, kv_stride = std::int64_t(p.kv_heads) * D;
  const T* const q_rows = static_cast<const T*>(p.q) + (std::int64_t(row_begin + q0) * p.heads + head) * D;
  const T* const k_rows = static_cast<const T*>(p.k) + (std::int64_t(row_begin) * p.kv_heads + kv_head) * D;
  const T* const v_rows = static_cast<const T*>(p.v) + (std::int64_t(row_begin) * p.kv_heads + kv_head) * D;

  // Only valid tokens are read: padding and positions past the row load as zeros.
  copy_tile_async<T, D, kRows>(q_tile, q_rows, q_stride, valid - q0);
  copy_tile_async<T, D, kCols>(k_tiles, k_rows, kv_stride, valid);
  commit_copies();
  copy_tile_async<T, D, kCols>(v_tiles, v_rows, kv_stride, valid);
  commit_copies();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned q_frag[D / 16][4];
  float o_acc[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY};  // raw scores
  float row_sum[2] = {0.f, 0.f};              // this thread's part of the row's sum
  CellCounts counted;

  for (int kt = 0; kt < key_tiles; ++kt) {
    const int k0 = kt * kCols;
    wait_copies<1>();  // K[kt] (and Q) landed; V[kt] may still be in flight
    __syncthreads();
    if (kt == 0) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        load_fragments(q_frag[kk], q_tile + swizzled<D>(warp * 16 + (lane & 15), kk * 2 + (lane >> 4)));
    }
    if (kt + 1 < key_tiles)
      copy_tile_async<T, D, kCols>(k_tiles + ((kt + 1) & 1) * kCols * D, k_rows + (k0 + kCols) * kv_stride,
                                   kv_stride, valid - k0 - kCols);
    commit_copies();  // possibly empty: keeps the group count the waits rely on

    // S = Q·Kᵀ for the warp's 16 rows and the tile's 64 keys.
    float s[kCols / 8][4] = {};
    const T* const k_tile = k_tiles + (kt & 1) * kCols * D;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int j = 0; j < kCols / 8; j += 2) {
        unsigned b[4];
        load_fragments(b, k_tile + swizzled<D>(j * 8 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1)));
        mma_16x8x16<T>(s[j], q_frag[kk], b[0], b[1]);
        mma_16x8x16<T>(s[j + 1], q_frag[kk], b[2], b[3]);
      }
    }

    // Mask: causal_masked and padding cells get -inf, by the layout's own definition.
    if (tile_needs_mask(lv, r, q0, k0, tile)) {
#pragma unroll
      for (int j = 0; j < kCols / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int q = q0 + warp * 16 + (lane >> 2) + ((e >> 1) << 3);
          const int k = k0 + j * 8 + ((lane & 3) << 1) + (e & 1);
          if (!attended(cell_kind(lv, r, q, k))) s[j][e] = -INFINITY;
        }
    }
    if (p.counts && threadIdx.x == 0) counted += count_tile(lv, r, q0, k0, tile);

    // Online softmax: new running max, rescale what was summed so far, P = exp2(S·c - max·c).
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < kCols / 8; ++j) tile_max = fmaxf(tile_max, fmaxf(s[j][2 * i], s[j][2 * i + 1]));
      const float new_max = fmaxf(row_max[i], quad_max(tile_max));
      // A row with nothing visible yet keeps max -inf; subtract 0 then, so exp2(-inf) = 0, not NaN.
      const float max_scaled = new_max == -INFINITY ? 0.f : new_max * p.scale_log2;
      const float rescale = exp2f(row_max[i] * p.scale_log2 - max_scaled);
      row_max[i] = new_max;
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kCols / 8; ++j) {
        s[j][2 * i] = exp2f(fmaf(s[j][2 * i], p.scale_log2, -max_scaled));
        s[j][2 * i + 1] = exp2f(fmaf(s[j][2 * i + 1], p.scale_log2, -max_scaled));
        sum += s[j][2 * i] + s[j][2 * i + 1];
      }
      row_sum[i] = row_sum[i] * rescale + sum;
#pragma unroll
      for (int j = 0; j < D / 8; ++j) {
        o_acc[j][2 * i] *= rescale;
        o_acc[j][2 * i + 1] *= rescale;
      }
    }

    // P as the A operand of the next mma: the accumulator layout of two adjacent
    // 8-key blocks is exactly the A fragment of one 16-key step.
    unsigned p_frag[kCols / 16][4];
#pragma unroll
    for (int kk = 0; kk < kCols / 16; ++kk) {
      p_frag[kk][0] = pack_pair<T>(s[2 * kk][0], s[2 * kk][1]);
      p_frag[kk][1] = pack_pair<T>(s[2 * kk][2], s[2 * kk][3]);
      p_frag[kk][2] = pack_pair<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      p_frag[kk][3] = pack_pair<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
    }

    wait_copies<1>();  // V[kt] landed; K[kt+1] may still be in flight
    __syncthreads();
    if (kt + 1 < key_tiles)
      copy_tile_async<T, D, kCols>(v_tiles + ((kt + 1) & 1) * kCols * D, v_rows + (k0 + kCols) * kv_stride,
                                   kv_stride, valid - k0 - kCols);
    commit_copies();

    // O += P·V: V's rows are keys, so ldmatrix.trans turns them into B fragments.
    const T* const v_tile = v_tiles + (kt & 1) * kCols * D;
#pragma unroll
    for (int kk = 0; kk < kCols / 16; ++kk) {
#pragma unroll
      for (int j = 0; j < D / 8; j += 2) {
        unsigned b[4];
        load_fragments_transposed(b, v_tile + swizzled<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), j + (lane >> 4)));
        mma_16x8x16<T>(o_acc[j], p_frag[kk], b[0], b[1]);
        mma_16x8x16<T>(o_acc[j + 1], p_frag[kk], b[2], b[3]);
      }
    }
  }
  wait_copies<0>();
  __syncthreads();  // every copy into the Q tile has landed before it is reused below

  // Finish: O /= row sum; LSE = ln(sum) + max·scale. A row with no attended key
  // (a padding query) gets O = 0 and LSE = -inf.
  const float ln2 = 0.6931471805599453f;
  float inv_sum[2], lse[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float sum = quad_sum(row_sum[i]);
    inv_sum[i] = sum > 0.f ? 1.f / sum : 0.f;
    lse[i] = sum > 0.f ? (row_max[i] * p.scale_log2 + log2f(sum)) * ln2 : -INFINITY;
  }
  // Stage the warp's 16 output rows in its own rows of the Q tile, then store
  // them 16 bytes per thread. Only the warp reads those rows: a warp sync suffices.
  __syncwarp();
#pragma unroll
  for (int j = 0; j < D / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = warp * 16 + (lane >> 2) + 8 * i;
      *reinterpret_cast<unsigned*>(q_tile + swizzled<D>(row, j) + ((lane & 3) << 1)) =
          pack_pair<T>(o_acc[j][2 * i] * inv_sum[i], o_acc[j][2 * i + 1] * inv_sum[i]);
    }
  __syncwarp();
  constexpr int chunks = D / 8;
#pragma unroll
  for (int n = 0; n < 16 * chunks / 32; ++n) {
    const int i = lane + 32 * n;
    const int row = warp * 16 + i / chunks, chunk = i % chunks;
    if (q0 + row < extent)
      *reinterpret_cast<uint4*>(static_cast<T*>(p.o) + (std::int64_t(row_begin + q0 + row) * p.heads + head) * D +
                                chunk * 8) = *reinterpret_cast<const uint4*>(q_tile + swizzled<D>(row, chunk));
  }
  if ((lane & 3) == 0) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int q = q0 + warp * 16 + (lane >> 2) + 8 * i;
      if (q < extent) p.lse[std::int64_t(row_begin + q) * p.heads + head] = lse[i];
    }
  }
  if (p.counts && threadIdx.x == 0) add_counts(p.counts, counted, key_tiles);
}

}  // namespace attnlab::flash
