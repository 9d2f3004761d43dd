#pragma once
// Owning host layouts built from one list of document lengths. The canonical
// token order is the documents concatenated (the varlen buffer); every layout
// says which canonical token each of its buffer positions holds.
#include <cstdint>
#include <vector>

#include "core/layout/layout.hpp"

namespace attnlab {

enum class PackingPolicy { concatenate, best_fit };  // best_fit: rows start at a document start, long documents cropped

inline const char* packing_policy_name(PackingPolicy p) {
  return p == PackingPolicy::concatenate ? "concatenate" : "best_fit";
}

struct Layout {
  LayoutKind kind = LayoutKind::varlen;
  bool causal = true;
  Window window;
  std::vector<int> row_start, row_valid, row_piece, piece_start, piece_doc, token_doc;
  std::vector<std::int64_t> token_source;  // canonical token index at each buffer position, -1 for padding
  std::vector<RowQueries> row_queries;     // the query side, one per row (LayoutView); empty: none
  std::int64_t query_buffer = 0;           // the Q buffer's positions, with a query side

  int num_rows() const { return static_cast<int>(row_valid.size()); }
  std::int64_t buffer_tokens() const { return static_cast<std::int64_t>(token_doc.size()); }
  // Positions of Q, O and LSE: the query side's buffer, or the layout's own.
  std::int64_t query_tokens() const { return has_query_side() ? query_buffer : buffer_tokens(); }
  bool has_query_side() const { return !row_queries.empty(); }
  int longest_row() const;
  LayoutView view() const {
    return {kind,
            causal,
            window,
            num_rows(),
            row_start.data(),
            row_valid.data(),
            row_piece.data(),
            piece_start.data(),
            piece_doc.data(),
            token_doc.data(),
            has_query_side() ? row_queries.data() : nullptr};
  }
};

// Start of each document in the canonical buffer, plus the total at the end (cu_seqlens).
std::vector<std::int64_t> document_offsets(const std::vector<int>& lengths);

Layout make_padded_layout(const std::vector<int>& lengths, int pad_to, bool causal, Window window = {});
Layout make_packed_layout(const std::vector<int>& lengths, int row_len, PackingPolicy policy, bool causal,
                          Window window = {});
Layout make_varlen_layout(const std::vector<int>& lengths, bool causal, Window window = {});

// Cell counts of a whole layout under a tile shape (per head), from count_tile over visited tiles.
CellCounts count_layout(const Layout& layout, TileShape tile);

}  // namespace attnlab
