#pragma once
// Which cells a kernel lets through, and the fast paths around asking cell_kind
// per cell. Attention runs over the cells that are `useful` or `bleed` (packed
// rows are causal over the whole row: that is the bleed); `causal_masked` and
// `padding` cells get -inf. A visited tile with no such cell needs no per-cell
// mask; only tiles on the causal diagonal or past a row's valid end do, and
// there a query's attended keys are one prefix of the row (last_attended_key).
// tests/gpu/tile_mask_test.cpp checks both against cell_kind on every visited
// tile and every cell of many layouts.
#include "core/layout.hpp"

namespace attnlab {

ATTNLAB_HD inline bool attended(CellKind kind) { return kind == CellKind::useful || kind == CellKind::bleed; }

// True iff some cell of the tile with top-left cell (q0, k0) is not attended.
ATTNLAB_HD inline bool tile_needs_mask(const LayoutView& v, int r, int q0, int k0, TileShape t) {
  const int q_last = q0 + t.rows - 1, k_last = k0 + t.cols - 1;
  const int last = q_last > k_last ? q_last : k_last;
  if (last >= v.row_valid[r]) return true;  // a padding query or key
  return v.causal && k_last > q0;           // the last key is after the first query
}

// Query q of row r attends exactly keys 0..last_attended_key (none when -1).
ATTNLAB_HD inline int last_attended_key(const LayoutView& v, int r, int q) {
  const int valid = v.row_valid[r];
  if (q >= valid) return -1;
  return v.causal ? q : valid - 1;
}

}  // namespace attnlab
