#pragma once
// The Hopper kernel's shared memory: where the forward's tiles, mbarriers and item
// slots lie, and the 128-byte swizzle that TMA writes and wgmma reads, with the
// staging of an accumulator through it (both kernels' epilogues).
#include <cstdint>

#include "kernels/common/accumulator.cuh"
#include "kernels/common/work_item.cuh"
#include "kernels/wgmma_sm90/features.hpp"
#include "kernels/wgmma_sm90/pipeline.cuh"
#include "kernels/wgmma_sm90/shape.hpp"

namespace attnlab::wgmma_sm90 {

// The forward's work item (kernels/common/work_item.cuh) at this kernel's tile.
using Item = flash::QueryTileItem<kRows, kCols>;

// What the producer tells the consumers about an item (the forward's, of a Q buffer; the
// persistent backward's, of its K and V): the item itself, decoded once (its coordinates
// come from global memory, a round trip the consumers would otherwise wait for at every
// item), or that the work is done.
template <typename WorkItem>
struct ItemSlot {
  WorkItem item;
  bool done;
};

// The forward's shared memory: two Q tiles (the next item's Q lands while this item
// computes; an item's output is staged in its own Q tile once its last Q·Kᵀ is done;
// one without F.two_q_buffers), `stages` K and V tiles, and the mbarriers of their
// rings (pipeline.cuh). Every tile is 128 rows x D in TMA's 128-byte swizzle: D/64
// blocks of [128 rows][64 elements], each 1024-byte aligned.
template <int D, ForwardFeatures F = shipped_features(D)>
struct SharedLayout {
  static constexpr int q_buffers = F.two_q_buffers ? 2 : 1;
  static constexpr int stages = F.kv_stages;
  static constexpr int tile_bytes = kRows * D * 2;
  static constexpr int block_bytes = kRows * 128;  // one [128][64] block
  static constexpr int q = 0;
  static constexpr int k = q + q_buffers * tile_bytes;
  static constexpr int v = k + stages * tile_bytes;
  static constexpr int barriers = v + stages * tile_bytes;
  static constexpr int barrier_count = 2 * q_buffers + 4 * stages;
  static constexpr int item_slots = barriers + barrier_count * 8;                            // an ItemSlot per Q buffer
  static constexpr int bytes = item_slots + q_buffers * int(sizeof(ItemSlot<Item>)) + 1024;  // + room to align the base
};

template <int D, ForwardFeatures F>
struct Shared {
  using L = SharedLayout<D, F>;
  unsigned char* base;
  __device__ unsigned char* q(int buffer) const { return base + L::q + buffer * L::tile_bytes; }
  __device__ unsigned char* k(int stage) const { return base + L::k + stage * L::tile_bytes; }
  __device__ unsigned char* v(int stage) const { return base + L::v + stage * L::tile_bytes; }
  __device__ std::uint64_t* barriers() const { return reinterpret_cast<std::uint64_t*>(base + L::barriers); }
  __device__ BarrierRing<L::q_buffers> q_ring() const { return {barriers(), 0, L::q_buffers}; }
  __device__ BarrierRing<L::stages> k_ring() const {
    return {barriers(), 2 * L::q_buffers, 2 * L::q_buffers + L::stages};
  }
  __device__ BarrierRing<L::stages> v_ring() const {
    return {barriers(), 2 * L::q_buffers + 2 * L::stages, 2 * L::q_buffers + 3 * L::stages};
  }
  __device__ ItemSlot<Item>* item_slot(int buffer) const {
    return reinterpret_cast<ItemSlot<Item>*>(base + L::item_slots) + buffer;
  }
};

// Byte offset of 16-byte chunk `chunk` (along d) of row `row` in a swizzled tile
// of `rows` rows (its 64-element blocks are rows·128 bytes apart).
__device__ __forceinline__ int tile_offset(int row, int chunk, int rows = kRows) {
  return (chunk / 8) * (rows * 128) + row * 128 + (((chunk % 8) ^ (row % 8)) << 4);
}

// stmatrix (store_matrices) from a warpgroup's fragments into a tile of `rows` rows in
// wgmma's swizzle stores two 16-byte chunks of a warp's 16 rows at a time: lane l names
// row l % 8 of matrix l / 8, that is of the rows 8 · ((l / 8) % 2) on, in chunk
// `chunk` + l / 16 (`chunk` even). Where that row goes, for the thread whose rows are
// first_row and first_row + 8. The swizzle puts a chunk's 8 rows on 8 different 16-byte
// positions, so a matrix's rows take all 32 banks.
__device__ __forceinline__ unsigned char* fragment_row(unsigned char* tile, int first_row, int chunk, int rows,
                                                       int lane) {
  const int row = first_row - lane / 4 + 8 * ((lane / 8) % 2) + lane % 8;
  return tile + tile_offset(row, chunk + lane / 16, rows);
}

// 16-bit A fragments of `columns` columns (flash::accumulator_as_a's layout: fragment kk
// is the four 8 x 8 matrices of chunks 2 kk and 2 kk + 1) into a tile of `rows` rows.
template <int columns, int rows>
__device__ __forceinline__ void stage_fragments(unsigned char* tile, const std::uint32_t (&f)[columns / 16][4],
                                                int first_row, int lane) {
#pragma unroll
  for (int kk = 0; kk < columns / 16; ++kk)
    store_matrices(fragment_row(tile, first_row, 2 * kk, rows, lane), f[kk][0], f[kk][1], f[kk][2], f[kk][3]);
}

// A warpgroup's accumulator of `columns` columns (the thread's rows first_row and
// first_row + 8, each times its factor), in 16 bits, into a tile of `rows` rows.
template <typename T, int columns, int rows = kRows>
__device__ __forceinline__ void stage_accumulator(unsigned char* tile, const float (&acc)[columns / 2], int first_row,
                                                  const float (&row_factor)[2], int lane) {
  const auto pair = [&](int e, int i) {
    return flash::pack_pair<T>(acc[e] * row_factor[i], acc[e + 1] * row_factor[i]);
  };
#pragma unroll
  for (int kk = 0; kk < columns / 16; ++kk)
    store_matrices(fragment_row(tile, first_row, 2 * kk, rows, lane), pair(8 * kk, 0), pair(8 * kk + 2, 1),
                   pair(8 * kk + 4, 0), pair(8 * kk + 6, 1));
}

// 64 staged rows of a tile of `rows` rows, from `first_row`, into `out` (`stride`
// elements per row), 16 bytes per thread of a warpgroup: whole lines, where the
// accumulator's own layout would write 16 bytes of each of 8 rows per warp store.
// Rows at or past `rows_present` are not stored.
template <typename T, int D, int rows = kRows>
__device__ __forceinline__ void store_staged_rows(T* out, std::int64_t stride, int rows_present,
                                                  const unsigned char* tile, int first_row, int thread) {
  constexpr int chunks = D / 8;
#pragma unroll
  for (int n = 0; n < 64 * chunks / kWarpgroup; ++n) {
    const int i = thread + kWarpgroup * n, row = i / chunks, chunk = i % chunks;
    if (row < rows_present)
      *reinterpret_cast<uint4*>(out + row * stride + chunk * 8) =
          *reinterpret_cast<const uint4*>(tile + tile_offset(first_row + row, chunk, rows));
  }
}

}  // namespace attnlab::wgmma_sm90
