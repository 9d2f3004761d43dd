#pragma once
// The one definition of every layout's mask. A layout is a set of
// rows (sequences) over a token buffer; these functions say which document a
// position holds, what kind each (query, key) cell is, and which tiles a tiled
// kernel visits. The CPU reference, the cost model, the CUDA kernels and the GUI
// all call them, so the picture, the count and the kernel cannot disagree.
#include <cstdint>

#include "core/layout/cell_kind.hpp"
#include "core/layout/host_device.hpp"

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

// A sliding window as FlashAttention's window_size = (left, right): query q attends
// keys q - left .. q + right, -1 meaning no bound on that side (a causal mask bounds
// the right side at q anyway). Positions count inside the row: inside the document
// for padded and varlen, inside the packed row for packed.
struct Window {
  int left = -1;
  int right = -1;
  ATTNLAB_HD bool any() const { return left >= 0 || right >= 0; }
  bool operator==(const Window&) const = default;
};

// A row's queries on a query side: the Q buffer's [begin, begin + count), query i sitting
// at position shift + i of the row, which may lie before the row's first key or past its
// last (a context-parallel rank's query piece against a piece of its document's K/V).
struct RowQueries {
  int begin = 0;
  int count = 0;
  int shift = 0;
  bool operator==(const RowQueries&) const = default;
};

// A non-owning view of a layout's index arrays, passed by value to kernels.
// Row r covers buffer positions [row_start[r], row_start[r+1]); its first
// row_valid[r] positions hold tokens, the rest are padding. The valid prefix is
// cut into document pieces [piece_start[p], piece_start[p+1] or row_valid[r])
// for p in [row_piece[r], row_piece[r+1]), each of document piece_doc[p].
//  - padded: one row per document, every row as long as the padded length;
//  - packed: rows of a fixed length holding one or more document pieces;
//  - varlen: one row per document, exactly as long as it (row_start is cu_seqlens).
// A row's queries are its own tokens, unless the view has a query side (RowQueries).
// Every function below takes a query by its index among its row's queries, a key by its
// position in the row.
struct LayoutView {
  LayoutKind kind = LayoutKind::varlen;
  bool causal = true;
  Window window;
  int num_rows = 0;
  const int* row_start = nullptr;           // num_rows + 1 buffer offsets
  const int* row_valid = nullptr;           // num_rows
  const int* row_piece = nullptr;           // num_rows + 1 indices into the piece arrays
  const int* piece_start = nullptr;         // position of the piece inside its row
  const int* piece_doc = nullptr;           // document of the piece
  const int* token_doc = nullptr;           // document at each buffer position, -1 for padding
  const RowQueries* row_queries = nullptr;  // num_rows; null: each row's queries are its own tokens
};

ATTNLAB_HD inline int row_extent(const LayoutView& v, int r) { return v.row_start[r + 1] - v.row_start[r]; }

// ---- queries --------------------------------------------------------------------

// The Q buffer position of row r's first query and its queries (padding included).
ATTNLAB_HD inline int query_begin(const LayoutView& v, int r) {
  return v.row_queries ? v.row_queries[r].begin : v.row_start[r];
}
ATTNLAB_HD inline int query_extent(const LayoutView& v, int r) {
  return v.row_queries ? v.row_queries[r].count : row_extent(v, r);
}

// What the mask asks of a row, read once: its keys that are tokens, its queries that are
// tokens (a query side has no padding) and the row position of its query 0. A kernel
// keeps it for a work item and asks the mask with it, tile after tile.
struct RowBounds {
  int keys = 0;
  int queries = 0;
  int shift = 0;
};
ATTNLAB_HD inline RowBounds row_bounds(const LayoutView& v, int r) {
  if (v.row_queries) return {v.row_valid[r], v.row_queries[r].count, v.row_queries[r].shift};
  return {v.row_valid[r], v.row_valid[r], 0};
}

// Document at position pos of row r, -1 for padding and for tile overhang.
ATTNLAB_HD inline int doc_at(const LayoutView& v, int r, int pos) {
  if (pos < 0 || pos >= v.row_valid[r]) return -1;
  return v.token_doc[v.row_start[r] + pos];
}

// ---- cells ----------------------------------------------------------------------

// Kind of the cell (query q, key k) of row r, assuming its tile is visited.
ATTNLAB_HD inline CellKind cell_kind(const LayoutView& v, int r, int q, int k) {
  const RowBounds b = row_bounds(v, r);
  if (q >= b.queries || k >= b.keys) return CellKind::padding;
  const int at = b.shift + q;
  if (v.causal && k > at) return CellKind::causal_masked;
  if ((v.window.left >= 0 && k < at - v.window.left) || (v.window.right >= 0 && k > at + v.window.right))
    return CellKind::window_masked;
  if (v.kind == LayoutKind::packed && doc_at(v, r, q) != doc_at(v, r, k)) return CellKind::bleed;
  return CellKind::useful;
}

// The keys [first, last] a query attends (useful and bleed cells): always one
// contiguous range of its row, empty (last < first) for a padding query and for a query
// of a query side that attends none of the row's keys.
struct KeyRange {
  int first = 0;
  int last = -1;
};
ATTNLAB_HD inline KeyRange attended_keys(const LayoutView& v, RowBounds b, int q) {
  if (q >= b.queries) return {};
  const int at = b.shift + q;
  KeyRange keys{0, b.keys - 1};
  if (v.window.left >= 0 && at - v.window.left > 0) keys.first = at - v.window.left;
  if (v.causal && at < keys.last) keys.last = at;
  if (v.window.right >= 0 && at + v.window.right < keys.last) keys.last = at + v.window.right;
  return keys;
}
ATTNLAB_HD inline KeyRange attended_keys(const LayoutView& v, int r, int q) {
  return attended_keys(v, row_bounds(v, r), q);
}

// ---- tiles ----------------------------------------------------------------------

ATTNLAB_HD inline int tiles_along(int extent, int tile) { return (extent + tile - 1) / tile; }
ATTNLAB_HD inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
ATTNLAB_HD inline int ceil_div(int a, int b) { return -floor_div(-a, b); }

// Tiles [first, end) along one axis; empty when end <= first.
struct TileRange {
  int first = 0;
  int end = 0;
  ATTNLAB_HD int count() const { return end > first ? end - first : 0; }
  bool operator==(const TileRange&) const = default;
};

// Query tiles of row r, and the key tiles query tile qt visits: a tiled kernel
// visits every key tile that holds an attended key of some query of the tile
// (queries past the row's valid end included, as a padded kernel computes them):
// it stops at the causal diagonal or the window's right edge, and starts at the
// window's left edge. Tiles wholly outside are skipped.
ATTNLAB_HD inline int query_tiles(const LayoutView& v, TileShape t, int r) {
  return tiles_along(query_extent(v, r), t.rows);
}
ATTNLAB_HD inline TileRange key_tiles_visited(const LayoutView& v, TileShape t, int r, int qt) {
  const int q_first = row_bounds(v, r).shift + qt * t.rows, q_last = q_first + t.rows - 1;  // row positions
  TileRange range{0, tiles_along(row_extent(v, r), t.cols)};
  if (v.causal && floor_div(q_last, t.cols) + 1 < range.end) range.end = floor_div(q_last, t.cols) + 1;
  if (v.window.right >= 0 && floor_div(q_last + v.window.right, t.cols) + 1 < range.end)
    range.end = floor_div(q_last + v.window.right, t.cols) + 1;
  if (v.window.left >= 0 && q_first - v.window.left > 0) range.first = (q_first - v.window.left) / t.cols;
  return range;
}
// The inverse, for a kernel that walks key tiles (the backward pass): the query
// tiles qt of row r whose key_tiles_visited holds key tile kt.
ATTNLAB_HD inline TileRange query_tiles_visiting(const LayoutView& v, TileShape t, int r, int kt) {
  TileRange range{0, query_tiles(v, t, r)};
  const int shift = row_bounds(v, r).shift;  // query tile qt's first query sits at shift + qt * rows
  // end(qt) > kt  <=>  q_last (+ right) >= kt * cols
  if (v.causal) range.first = floor_div(kt * t.cols - shift, t.rows);
  if (v.window.right >= 0 && !v.causal) range.first = floor_div(kt * t.cols - v.window.right - shift, t.rows);
  if (range.first < 0) range.first = 0;
  // first(qt) <= kt  <=>  q_first - left < (kt + 1) * cols
  if (v.window.left >= 0) {
    const int end = ceil_div((kt + 1) * t.cols + v.window.left - shift, t.rows);
    if (end < range.end) range.end = end;
  }
  return range;
}
ATTNLAB_HD inline bool tile_visited(const LayoutView& v, TileShape t, int r, int qt, int kt) {
  const TileRange keys = key_tiles_visited(v, t, r, qt);
  return qt < query_tiles(v, t, r) && kt >= keys.first && kt < keys.end;
}

// True iff some cell of the tile with top-left cell (query q0, key k0) is not attended:
// the kernels' fast path around asking for every cell's kind.
ATTNLAB_HD inline bool tile_needs_mask(const LayoutView& v, RowBounds b, int q0, int k0, TileShape t) {
  const int k_last = k0 + t.cols - 1;
  if (q0 + t.rows > b.queries || k_last >= b.keys) return true;      // a padding query or key
  const int first = b.shift + q0, last = first + t.rows - 1;         // row positions
  if (v.causal && k_last > first) return true;                       // the last key is after the first query
  if (v.window.left >= 0 && k0 < last - v.window.left) return true;  // the first key is left of the last query's window
  return v.window.right >= 0 && k_last > first + v.window.right;     // the last key is right of the first query's
}
ATTNLAB_HD inline bool tile_needs_mask(const LayoutView& v, int r, int q0, int k0, TileShape t) {
  return tile_needs_mask(v, row_bounds(v, r), q0, k0, t);
}

// ---- counting -------------------------------------------------------------------

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

// #{(q, k) : a <= q < b, c <= k < d, k - q <= shift}: causal_pairs with the diagonal moved.
ATTNLAB_HD inline std::int64_t pairs_below(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d,
                                           std::int64_t shift) {
  return causal_pairs(a + shift, b + shift, c, d);
}

// #{(q, k) in [a, b) x [c, d) : the mask lets k through for q} under the view's causal
// rule and window, documents aside (no bleed split).
ATTNLAB_HD inline std::int64_t attended_pairs(const LayoutView& v, std::int64_t a, std::int64_t b, std::int64_t c,
                                              std::int64_t d) {
  if (b <= a || d <= c) return 0;
  const bool right_bound = v.causal || v.window.right >= 0;
  const std::int64_t right = v.causal ? 0 : v.window.right;
  const std::int64_t upto = right_bound ? pairs_below(a, b, c, d, right) : (b - a) * (d - c);
  const std::int64_t left_of = v.window.left >= 0 ? pairs_below(a, b, c, d, -std::int64_t(v.window.left) - 1) : 0;
  return upto - left_of;
}

// Cells of each kind in the tile of row r whose top-left cell is (query q0, key k0): the
// closed form of summing cell_kind over the tile, so large layouts count fast.
ATTNLAB_HD inline CellCounts count_tile(const LayoutView& v, int r, int q0, int k0, TileShape t) {
  CellCounts c;
  const RowBounds b = row_bounds(v, r);
  const int valid = b.keys;
  const int q_end = q0 + t.rows < b.queries ? q0 + t.rows : b.queries;
  const int kb = k0 + t.cols < valid ? k0 + t.cols : valid;
  const std::int64_t nq = q_end > q0 ? q_end - q0 : 0, nk = kb > k0 ? kb - k0 : 0;
  c[CellKind::padding] = std::int64_t(t.rows) * t.cols - nq * nk;
  if (nq == 0 || nk == 0) return c;
  const int qa = b.shift + q0, qb = qa + int(nq);  // the valid queries' row positions
  const std::int64_t not_future = v.causal ? causal_pairs(qa, qb, k0, kb) : nq * nk;
  const std::int64_t attended = attended_pairs(v, qa, qb, k0, kb);
  c[CellKind::causal_masked] = nq * nk - not_future;
  c[CellKind::window_masked] = not_future - attended;
  if (v.kind != LayoutKind::packed) {  // one document per row: nothing attended is bleed
    c[CellKind::useful] = attended;
    return c;
  }
  for (int p = v.row_piece[r]; p < v.row_piece[r + 1]; ++p) {  // a packed row's queries are its own tokens
    const int s0 = v.piece_start[p];
    const int s1 = p + 1 < v.row_piece[r + 1] ? v.piece_start[p + 1] : valid;
    const int from = qa > s0 ? qa : s0, to = qb < s1 ? qb : s1;
    const int ka = k0 > s0 ? k0 : s0, kz = kb < s1 ? kb : s1;
    c[CellKind::useful] += attended_pairs(v, from, to, ka, kz);
  }
  c[CellKind::bleed] = attended - c[CellKind::useful];
  return c;
}

}  // namespace attnlab
