#pragma once
// The warp-specialized backward's shared memory: the key tile's K and V, two stages of
// each step's Q, dO, dSᵀ and query info, dQ's staging, three item slots, and the mbarriers
// of the step ring (pipeline.cuh), of K and V (full and empty), and the loader's own (tiles
// that cross a row's valid end). Tiles in wgmma's 128-byte swizzle (shared_memory.cuh),
// each 1024-byte aligned.
#include <cstdint>

#include "kernels/wgmma_sm90/backward_steps.cuh"
#include "kernels/wgmma_sm90/pipeline.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

// dSᵀ has a stage per step too: a consumer stages the next step's while the other may
// still read this step's in its dQ product, so the consumers need not meet before it.
template <typename T, int D>
struct SpecializedBackwardLayout {
  static constexpr int stages = 2;
  static constexpr int key_tile_bytes = kCols * D * 2;
  static constexpr int query_tile_bytes = kStepQueries * D * 2;
  static constexpr int ds_tile_bytes = kCols * kStepQueries * 2;
  static constexpr int k = 0;
  static constexpr int v = k + key_tile_bytes;
  static constexpr int q = v + key_tile_bytes;
  static constexpr int d_o = q + stages * query_tile_bytes;
  static constexpr int ds = d_o + stages * query_tile_bytes;
  static constexpr int dq = ds + stages * ds_tile_bytes;
  // dQ's staging, in boxes or in rows (backward_steps.cuh); rows, padded, take the more room.
  static constexpr int dq_staging_bytes = D / 64 * kQueryGradientRowsBytes;
  static_assert(dq_staging_bytes >= D / kQueryGradientBoxFloats * kQueryGradientBoxBytes);
  static constexpr int infos = dq + dq_staging_bytes;
  static constexpr int item_slots = infos + stages * int(sizeof(QueryInfo));
  static constexpr int slots = 3;
  static constexpr int barriers = item_slots + slots * int(sizeof(ItemSlot<KeyItem<T, D>>));
  // The step ring's full and empty; K and V's full and empty; the loader's.
  static constexpr int barrier_count = 2 * stages + 3;
  static constexpr int bytes = barriers + barrier_count * 8 + 1024;  // + room to align the base to 1024
  // A persistent CTA's dK and dV leave through the dSᵀ stages and dQ's staging (which follow
  // each other), so the Q and dO stages take the next item's steps meanwhile; a CTA of one
  // item's through the Q stages and the dO stages.
  static constexpr int dk = ds;
  static constexpr int dv = ds + key_tile_bytes;
  static_assert(dv + key_tile_bytes <= infos);
  static_assert(stages * query_tile_bytes == key_tile_bytes && d_o - q == key_tile_bytes);
  static_assert(ds % 1024 == 0 && dq % 1024 == 0 && key_tile_bytes % 1024 == 0);
  static_assert(item_slots % 8 == 0 && barriers % 8 == 0);
};

template <typename T, int D>
struct BackwardShared {
  using L = SpecializedBackwardLayout<T, D>;
  unsigned char* base;  // 1024-byte aligned

  __device__ unsigned char* k() const { return base + L::k; }
  __device__ unsigned char* v() const { return base + L::v; }
  __device__ unsigned char* q(int stage) const { return base + L::q + stage * L::query_tile_bytes; }
  __device__ unsigned char* d_o(int stage) const { return base + L::d_o + stage * L::query_tile_bytes; }
  __device__ unsigned char* ds(int stage) const { return base + L::ds + stage * L::ds_tile_bytes; }
  __device__ unsigned char* dq() const { return base + L::dq; }
  __device__ unsigned char* dk_staging() const { return base + L::dk; }
  __device__ unsigned char* dv_staging() const { return base + L::dv; }
  __device__ QueryInfo& info(int stage) const { return reinterpret_cast<QueryInfo*>(base + L::infos)[stage]; }
  // Item n's slot, published with its K and V (key_barrier's phase n). Three, so that the
  // loader may fill item n's as soon as it takes the item: it has waited for the release of
  // item n - 2 (key_empty_barrier), which the consumers and the writer give after reading
  // its slot, so item n - 3's is free.
  __device__ ItemSlot<KeyItem<T, D>>& item_slot(int n) const {
    return reinterpret_cast<ItemSlot<KeyItem<T, D>>*>(base + L::item_slots)[n % L::slots];
  }
  __device__ std::uint64_t* barriers() const { return reinterpret_cast<std::uint64_t*>(base + L::barriers); }
  __device__ BarrierRing<L::stages> step_ring() const { return {barriers(), 0, L::stages}; }
  __device__ std::uint64_t* key_barrier() const { return barriers() + 2 * L::stages; }
  // Every consumer thread's products of an item are done with its K and V, and the writer
  // with its slot.
  __device__ std::uint64_t* key_empty_barrier() const { return barriers() + 2 * L::stages + 1; }
  __device__ std::uint64_t* crossing_barrier() const { return barriers() + 2 * L::stages + 2; }
};

}  // namespace attnlab::wgmma_sm90
