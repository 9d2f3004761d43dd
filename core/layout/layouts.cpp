#include "core/layout/layouts.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

namespace attnlab {

namespace {

// A piece of one document inside a row.
struct Piece {
  int doc;
  std::int64_t first_token;  // canonical index of the piece's first token
  int length;
};

// Appends one row holding the given document pieces, padded to `extent` positions.
void append_row(Layout& l, const std::vector<Piece>& pieces, int extent) {
  int pos = 0;
  for (const Piece& p : pieces) {
    l.piece_start.push_back(pos);
    l.piece_doc.push_back(p.doc);
    l.token_doc.insert(l.token_doc.end(), p.length, p.doc);
    for (int i = 0; i < p.length; ++i) l.token_source.push_back(p.first_token + i);
    pos += p.length;
  }
  if (pos > extent) throw std::logic_error("layout row overflows its extent");
  l.row_valid.push_back(pos);
  l.token_doc.insert(l.token_doc.end(), extent - pos, -1);
  l.token_source.insert(l.token_source.end(), extent - pos, -1);
  l.row_start.push_back(l.row_start.back() + extent);
  l.row_piece.push_back(static_cast<int>(l.piece_start.size()));
}

// A layout of no rows yet, its arrays sized for what the builder will append: growing
// them by doubling took most of the time of long-tail's 1.47M-position padded layout.
Layout empty_layout(LayoutKind kind, bool causal, Window window, std::size_t rows, std::size_t pieces,
                    std::int64_t positions) {
  Layout l;
  l.kind = kind;
  l.causal = causal;
  l.window = window;
  l.row_start.reserve(rows + 1);
  l.row_valid.reserve(rows);
  l.row_piece.reserve(rows + 1);
  l.piece_start.reserve(pieces);
  l.piece_doc.reserve(pieces);
  l.token_doc.reserve(static_cast<std::size_t>(positions));
  l.token_source.reserve(static_cast<std::size_t>(positions));
  l.row_start.push_back(0);
  l.row_piece.push_back(0);
  return l;
}

void require_positive(int value, const char* what) {
  if (value <= 0) throw std::invalid_argument(std::string(what) + " must be positive, got " + std::to_string(value));
}

}  // namespace

int Layout::longest_row() const {
  int longest = 0;
  for (int r = 0; r < num_rows(); ++r) longest = std::max(longest, row_start[r + 1] - row_start[r]);
  return longest;
}

std::vector<std::int64_t> document_offsets(const std::vector<int>& lengths) {
  std::vector<std::int64_t> offsets{0};
  for (int len : lengths) offsets.push_back(offsets.back() + len);
  return offsets;
}

Layout make_padded_layout(const std::vector<int>& lengths, int pad_to, bool causal, Window window) {
  require_positive(pad_to, "padded length");
  const std::size_t docs = lengths.size();
  Layout l = empty_layout(LayoutKind::padded, causal, window, docs, docs, std::int64_t(docs) * pad_to);
  const auto offsets = document_offsets(lengths);
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    if (lengths[d] > pad_to)
      throw std::invalid_argument("document " + std::to_string(d) + " has " + std::to_string(lengths[d]) +
                                  " tokens, more than the padded length " + std::to_string(pad_to));
    append_row(l, {{static_cast<int>(d), offsets[d], lengths[d]}}, pad_to);
  }
  return l;
}

Layout make_packed_layout(const std::vector<int>& lengths, int row_len, PackingPolicy policy, bool causal,
                          Window window) {
  require_positive(row_len, "row length");
  const auto offsets = document_offsets(lengths);
  if (policy == PackingPolicy::concatenate) {
    // Concatenate and cut: a document may continue into the next row; the last row is padded.
    const std::int64_t rows = (offsets.back() + row_len - 1) / row_len;
    // Pieces: one per document, plus one per row a document continues into.
    Layout l = empty_layout(LayoutKind::packed, causal, window, rows, rows + lengths.size(), rows * row_len);
    std::vector<Piece> row;
    int used = 0;
    for (std::size_t d = 0; d < lengths.size(); ++d) {
      int done = 0;
      while (done < lengths[d]) {
        const int take = std::min(lengths[d] - done, row_len - used);
        row.push_back({static_cast<int>(d), offsets[d] + done, take});
        done += take;
        used += take;
        if (used == row_len) {
          append_row(l, row, row_len);
          row.clear();
          used = 0;
        }
      }
    }
    if (!row.empty()) append_row(l, row, row_len);
    return l;
  }
  // Best fit: each document (cropped to the row length) goes to the open row
  // with the least room that still holds it, so every row starts at a document start.
  // Open rows ordered by (room left, row): the first at or after (len, 0) is the
  // tightest fit, the earliest row among equals, found without scanning every row.
  std::vector<std::vector<Piece>> rows;
  std::set<std::pair<int, int>> open;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    const int len = std::min(lengths[d], row_len);
    int room = row_len, best = static_cast<int>(rows.size());
    if (const auto fit = open.lower_bound({len, 0}); fit != open.end()) {
      std::tie(room, best) = *fit;
      open.erase(fit);
    } else {
      rows.emplace_back();
    }
    rows[best].push_back({static_cast<int>(d), offsets[d], len});
    open.insert({room - len, best});
  }
  Layout l = empty_layout(LayoutKind::packed, causal, window, rows.size(), lengths.size(),
                          std::int64_t(rows.size()) * row_len);
  for (const auto& row : rows) append_row(l, row, row_len);
  return l;
}

Layout make_varlen_layout(const std::vector<int>& lengths, bool causal, Window window) {
  const auto offsets = document_offsets(lengths);
  Layout l = empty_layout(LayoutKind::varlen, causal, window, lengths.size(), lengths.size(), offsets.back());
  for (std::size_t d = 0; d < lengths.size(); ++d)
    append_row(l, {{static_cast<int>(d), offsets[d], lengths[d]}}, lengths[d]);
  return l;
}

CellCounts count_layout(const Layout& layout, TileShape tile) {
  const LayoutView v = layout.view();
  CellCounts total;
  for (int r = 0; r < v.num_rows; ++r)
    for (int qt = 0; qt < query_tiles(v, tile, r); ++qt) {
      const TileRange keys = key_tiles_visited(v, tile, r, qt);
      for (int kt = keys.first; kt < keys.end; ++kt) total += count_tile(v, r, qt * tile.rows, kt * tile.cols, tile);
    }
  return total;
}

}  // namespace attnlab
