#pragma once
// The one definition of every layout's mask (DESIGN.md §2). A layout is a set of
// rows (sequences) over a token buffer; these functions say which document a
// position holds, what kind each (query, key) cell is, and which tiles a tiled
// kernel visits. The CPU reference, the cost model, the CUDA kernels and the GUI
// all call them, so the picture, the count and the kernel cannot disagree.
#include <cstdint>

#include "core/cell_kind.hpp"
#include "core/host_device.hpp"

namespace attnlab {

enum class LayoutKind : int { padded, packed, varlen };

inline const char* layout_kind_name(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::padded: return "padded";
    case LayoutKind::packed: return "packed";
    case LayoutKind::varlen: return "varlen";
  }
  return "?";
}

// Query rows x key columns of one tile of the score matrix.
struct TileShape {
  int rows = 64;
  int cols = 64;
  bool operator==(const TileShape&) const = default;
};

// A non-owning view of a layout's index arrays, passed by value to kernels.
// Row r covers buffer positions [row_start[r], row_start[r+1]); its first
// row_valid[r] positions hold tokens, the rest are padding. The valid prefix is
// cut into document pieces [piece_start[p], piece_start[p+1] or row_valid[r])
// for p in [row_piece[r], row_piece[r+1]), each of document piece_doc[p].
//  - padded: one row per document, every row as long as the padded length;
//  - packed: rows of a fixed length holding one or more document pieces;
//  - varlen: one row per document, exactly as long as it (row_start is cu_seqlens).
struct LayoutView {
  LayoutKind kind = LayoutKind::varlen;
  bool causal = true;
  int num_rows = 0;
  const int* row_start = nullptr;    // num_rows + 1 buffer offsets
  const int* row_valid = nullptr;    // num_rows
  const int* row_piece = nullptr;    // num_rows + 1 indices into the piece arrays
  const int* piece_start = nullptr;  // position of the piece inside its row
  const int* piece_doc = nullptr;    // document of the piece
  const int* token_doc = nullptr;    // document at each buffer position, -1 for padding
};

ATTNLAB_HD inline int row_extent(const LayoutView& v, int r) { return v.row_start[r + 1] - v.row_start[r]; }

// Document at position pos of row r, -1 for padding and for tile overhang.
ATTNLAB_HD inline int doc_at(const LayoutView& v, int r, int pos) {
  if (pos < 0 || pos >= v.row_valid[r]) return -1;
  return v.token_doc[v.row_start[r] + pos];
}

// Kind of the cell (query q, key k) of row r, assuming its tile is visited.
ATTNLAB_HD inline CellKind cell_kind(const LayoutView& v, int r, int q, int k) {
  const int valid = v.row_valid[r];
  if (q >= valid || k >= valid) return CellKind::padding;
  if (v.causal && k > q) return CellKind::causal_masked;
  if (v.kind == LayoutKind::packed && doc_at(v, r, q) != doc_at(v, r, k)) return CellKind::bleed;
  return CellKind::useful;
}

ATTNLAB_HD inline int tiles_along(int extent, int tile) { return (extent + tile - 1) / tile; }

// Query tiles of row r, and the key tiles that query tile qt visits: a causal
// tiled kernel stops at the key tile holding the tile's last query.
ATTNLAB_HD inline int query_tiles(const LayoutView& v, TileShape t, int r) { return tiles_along(row_extent(v, r), t.rows); }
ATTNLAB_HD inline int key_tiles_visited(const LayoutView& v, TileShape t, int r, int qt) {
  const int all = tiles_along(row_extent(v, r), t.cols);
  if (!v.causal) return all;
  const int last_query = qt * t.rows + t.rows - 1;
  const int upto = last_query / t.cols + 1;
  return upto < all ? upto : all;
}
ATTNLAB_HD inline bool tile_visited(const LayoutView& v, TileShape t, int r, int qt, int kt) {
  return qt < query_tiles(v, t, r) && kt < key_tiles_visited(v, t, r, qt);
}

// #{(q, k) : a <= q < b, c <= k < d, k <= q}: the cells a causal mask lets through.
ATTNLAB_HD inline std::int64_t causal_pairs(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
  if (b <= a || d <= c) return 0;
  std::int64_t total = 0;
  const std::int64_t lo = a > c ? a : c, hi = b < d ? b : d;  // here q - c + 1 runs 1..d-c
  if (hi > lo) total += (hi - lo) * ((lo - c + 1) + (hi - c)) / 2;
  const std::int64_t full_from = a > d ? a : d;  // here every key of [c, d) is visible
  if (b > full_from) total += (b - full_from) * (d - c);
  return total;
}

// Cells of each kind in the tile of row r whose top-left cell is (q0, k0): the
// closed form of summing cell_kind over the tile, so large layouts count fast.
ATTNLAB_HD inline CellCounts count_tile(const LayoutView& v, int r, int q0, int k0, TileShape t) {
  CellCounts c;
  const int valid = v.row_valid[r];
  const int qb = q0 + t.rows < valid ? q0 + t.rows : valid;
  const int kb = k0 + t.cols < valid ? k0 + t.cols : valid;
  const std::int64_t nq = qb > q0 ? qb - q0 : 0, nk = kb > k0 ? kb - k0 : 0;
  c.padding = std::int64_t(t.rows) * t.cols - nq * nk;
  if (nq == 0 || nk == 0) return c;
  const std::int64_t unmasked = v.causal ? causal_pairs(q0, qb, k0, kb) : nq * nk;
  c.causal_masked = nq * nk - unmasked;
  for (int p = v.row_piece[r]; p < v.row_piece[r + 1]; ++p) {
    const int s0 = v.piece_start[p];
    const int s1 = p + 1 < v.row_piece[r + 1] ? v.piece_start[p + 1] : valid;
    const int qa = q0 > s0 ? q0 : s0, qz = qb < s1 ? qb : s1;
    const int ka = k0 > s0 ? k0 : s0, kz = kb < s1 ? kb : s1;
    if (qz <= qa || kz <= ka) continue;
    c.useful += v.causal ? causal_pairs(qa, qz, ka, kz) : std::int64_t(qz - qa) * (kz - ka);
  }
  c.bleed = unmasked - c.useful;
  return c;
}

}  // namespace attnlab
