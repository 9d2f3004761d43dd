#pragma once
// The flash kernels' work items, decoded from the work list and the layout in one
// place for both kernels. The work list holds (row, tile) items (work_list.hpp); a
// kernel runs each for every head, so an index counts items × heads.
#include <cstdint>

#include "core/layout/layout.hpp"
#include "kernels/common/params.cuh"

namespace attnlab::flash {

// The forward's item: a (row, query tile) of the layout and one query head (index =
// item * heads + head: the CTAs running at one time work on neighbouring tiles of the
// same rows and share their K/V in L2), at a tile of `rows` queries x `cols` keys.
template <int rows, int cols>
struct QueryTileItem {
  WorkItem work;
  int head, kv_head;
  int q0;                         // the tile's first query, among the row's queries
  int query_begin, query_extent;  // the row's queries: the first one's buffer position, their count
  int row_begin;                  // the row's first key's buffer position
  RowBounds bounds;               // what the mask asks of the row, kept for every tile
  TileRange key_tiles;            // the key tiles it visits

  QueryTileItem() = default;
  __device__ QueryTileItem(const Params& p, int index)
      : work(p.work[index / p.heads]),
        head(index % p.heads),
        kv_head(head / (p.heads / p.kv_heads)),
        q0(work.query_tile * rows),
        query_begin(attnlab::query_begin(p.layout, work.row)),
        query_extent(attnlab::query_extent(p.layout, work.row)),
        row_begin(p.layout.row_start[work.row]),
        bounds(row_bounds(p.layout, work.row)),
        key_tiles(key_tiles_visited(p.layout, TileShape{rows, cols}, work.row, work.query_tile)) {}
  // Keys of the row present (not padding) from the first visited key onwards.
  __device__ int keys_present() const { return bounds.keys - key_tiles.first * cols; }
};

// The backward's item: a (row, key tile) of the layout and one KV head (one CTA
// each), and the steps it walks: every (query head of the group, query tile visiting
// the key tile), at the tile of `rows` queries x `cols` keys. With square tiles a row
// has as many key tiles as query tiles, so the backward work list's (row, tile) items
// (flash_backward_work_list: heaviest key tiles of a row first) are key tiles.
template <typename T, int D, int rows, int cols>
struct KeyTileItem {
  static_assert(rows == cols, "the backward reads its work list's (row, tile) items as key tiles");
  int row, k0, row_begin, extent, valid, kv_head, group, first_query_tile, query_tile_count;
  const T *k, *v;  // the tile's first key and value, of its KV head

  KeyTileItem() = default;  // a slot's, filled in by assignment
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
  // What the mask asks of the row: the backward runs a layout's own queries only (no query
  // side: run_flash_backward refuses one), so its queries are its keys.
  __device__ RowBounds bounds() const { return {valid, valid, 0}; }
  __device__ int steps() const { return group * query_tile_count; }
  __device__ int head_of(int step) const { return kv_head * group + step / query_tile_count; }
  __device__ int q0_of(int step) const { return (first_query_tile + step % query_tile_count) * rows; }
};

}  // namespace attnlab::flash
