#pragma once
// The kernels' fast path around cell_kind: a visited tile whose every cell is
// `useful` needs no per-cell mask. Only tiles on the causal diagonal, past a
// row's valid end or across a document boundary of a packed row fall back to
// cell_kind cell by cell. tests/gpu/tile_mask_test.cpp checks this equals
// "every cell_kind in the tile is useful" on every visited tile of many layouts.
#include "core/layout.hpp"

namespace attnlab {

ATTNLAB_HD inline bool tile_all_useful(const LayoutView& v, int r, int q0, int k0, TileShape t) {
  const int q_last = q0 + t.rows - 1, k_last = k0 + t.cols - 1;
  const int last = q_last > k_last ? q_last : k_last;
  if (last >= v.row_valid[r]) return false;       // a padding query or key
  if (v.causal && k_last > q0) return false;      // some key after some query
  if (v.kind != LayoutKind::packed) return true;  // one document per row
  // Documents sit in one contiguous piece per row: same document at both ends
  // of the span means the same document everywhere in it.
  const int first = q0 < k0 ? q0 : k0;
  return doc_at(v, r, first) == doc_at(v, r, last);
}

}  // namespace attnlab
