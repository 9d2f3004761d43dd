#include "core/cost/cp_piece_layouts.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace attnlab {

namespace {

// Buffer offsets of the pieces in order, and the total at the end.
std::vector<std::int64_t> piece_offsets(const Layout& varlen, const std::vector<CpPiece>& pieces, const char* what) {
  std::vector<std::int64_t> offsets{0};
  for (const CpPiece& p : pieces) {
    if (p.doc < 0 || p.doc >= varlen.num_rows() || p.first < 0 || p.first > p.end || p.end > varlen.row_valid[p.doc])
      throw std::invalid_argument(std::string("cp_piece_layouts: a ") + what + " piece [" + std::to_string(p.first) +
                                  ", " + std::to_string(p.end) + ") of document " + std::to_string(p.doc) +
                                  " lies outside it");
    offsets.push_back(offsets.back() + p.tokens());
  }
  if (offsets.back() > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string("cp_piece_layouts: the ") + what + " pieces hold " +
                                std::to_string(offsets.back()) + " tokens, more than a buffer position holds");
  return offsets;
}

// A round's layout before its rows get queries: every key piece a varlen row over the K/V buffer.
Layout key_rows(const Layout& varlen, const std::vector<CpPiece>& keys, const std::vector<std::int64_t>& offsets,
                const std::vector<std::int64_t>& key_source, std::int64_t query_tokens) {
  Layout l;
  l.kind = LayoutKind::varlen;
  l.causal = varlen.causal;
  l.window = varlen.window;
  l.row_start.push_back(0);
  l.row_piece.push_back(0);
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const CpPiece& k = keys[j];
    l.row_start.push_back(static_cast<int>(offsets[j + 1]));
    l.row_valid.push_back(k.tokens());
    l.piece_start.push_back(0);
    l.piece_doc.push_back(k.doc);
    l.row_piece.push_back(static_cast<int>(l.piece_start.size()));
    l.token_doc.insert(l.token_doc.end(), k.tokens(), k.doc);
  }
  l.token_source = key_source;
  l.row_queries.assign(keys.size(), RowQueries{});
  l.query_buffer = query_tokens;
  return l;
}

}  // namespace

CpPieceLayouts cp_piece_layouts(const Layout& varlen, const std::vector<CpPiece>& queries,
                                const std::vector<CpPiece>& keys) {
  if (varlen.kind != LayoutKind::varlen || varlen.has_query_side())
    throw std::invalid_argument("cp_piece_layouts: expected a scenario's varlen layout");
  const std::vector<std::int64_t> q_at = piece_offsets(varlen, queries, "query");
  const std::vector<std::int64_t> k_at = piece_offsets(varlen, keys, "key");
  CpPieceLayouts out;
  out.query_tokens = q_at.back();
  out.key_tokens = k_at.back();
  for (const CpPiece& p : queries)
    for (int t = p.first; t < p.end; ++t) out.query_source.push_back(varlen.row_start[p.doc] + std::int64_t(t));
  for (const CpPiece& p : keys)
    for (int t = p.first; t < p.end; ++t) out.key_source.push_back(varlen.row_start[p.doc] + std::int64_t(t));

  // The key pieces of each document, by first key: a query piece meets only its own document's.
  std::vector<std::size_t> by_doc(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) by_doc[j] = j;
  std::sort(by_doc.begin(), by_doc.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(keys[a].doc, keys[a].first) < std::pair(keys[b].doc, keys[b].first);
  });
  const LayoutView view = varlen.view();
  // Per round, whether each query piece and each key piece already has its row there.
  std::vector<std::vector<bool>> query_taken, key_taken;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const CpPiece& qp = queries[i];
    const auto first =
        std::partition_point(by_doc.begin(), by_doc.end(), [&](std::size_t j) { return keys[j].doc < qp.doc; });
    for (auto it = first; it != by_doc.end() && keys[*it].doc == qp.doc; ++it) {
      const std::size_t j = *it;
      const CpPiece attending = piece_queries_attending(view, qp, keys[j]);
      if (attending.tokens() == 0) continue;
      std::size_t round = 0;
      while (round < out.rounds.size() && (query_taken[round][i] || key_taken[round][j])) ++round;
      if (round == out.rounds.size()) {
        out.rounds.push_back(key_rows(varlen, keys, k_at, out.key_source, out.query_tokens));
        query_taken.emplace_back(queries.size(), false);
        key_taken.emplace_back(keys.size(), false);
      }
      query_taken[round][i] = key_taken[round][j] = true;
      out.rounds[round].row_queries[j] = {static_cast<int>(q_at[i] + (attending.first - qp.first)), attending.tokens(),
                                          attending.first - keys[j].first};
    }
  }
  return out;
}

}  // namespace attnlab
