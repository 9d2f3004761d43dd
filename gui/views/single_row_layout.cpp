#include "gui/views/single_row_layout.hpp"

namespace attnlab::gui {

Layout single_row_layout(const Layout& l, int r) {
  Layout one;
  one.kind = l.kind;
  one.causal = l.causal;
  one.window = l.window;
  const int start = l.row_start[r], extent = l.row_start[r + 1] - start, valid = l.row_valid[r];
  const auto pieces_begin = l.row_piece[r], pieces_end = l.row_piece[r + 1];
  one.row_start = {0, extent};
  one.row_valid = {valid};
  one.row_piece = {0, pieces_end - pieces_begin};
  one.piece_start.assign(l.piece_start.begin() + pieces_begin, l.piece_start.begin() + pieces_end);
  one.piece_doc.assign(l.piece_doc.begin() + pieces_begin, l.piece_doc.begin() + pieces_end);
  one.token_doc.assign(l.token_doc.begin() + start, l.token_doc.begin() + start + extent);
  one.token_source.resize(extent);
  for (int p = 0; p < extent; ++p) one.token_source[p] = p < valid ? p : -1;
  return one;
}

}  // namespace attnlab::gui
