#pragma once
// What a flash kernel runs for one context-parallel step of one rank: its query pieces
// against some pieces of K/V (its own, or a shard another rank sent), as varlen layouts
// with a query side (core/layout/layout.hpp). A row is one key piece and the run of one
// query piece's queries that attend it, each query at its document position less the key
// piece's first: the mask is the document's own, cut to the keys the piece holds.
//
// A query piece can attend several key pieces of its document (zigzag gives a rank two
// chunks of each), and a key piece can be attended by several query pieces. A kernel writes
// each query's O and LSE once per launch and a layout's rows tile its K/V buffer, so the
// (query piece, key piece) pairs are dealt into rounds, each pair to the first round in which
// neither piece has one yet; a round is one launch over every key piece (those without a pair
// there have no queries), and the rounds' partials are merged by their LSE, as the steps' are.
#include <cstdint>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/layout/layouts.hpp"

namespace attnlab {

struct CpPieceLayouts {
  // Q (and O, LSE) buffer: the query pieces in order; K/V buffer: the key pieces in order.
  std::int64_t query_tokens = 0;
  std::int64_t key_tokens = 0;
  std::vector<std::int64_t> query_source, key_source;  // each buffer's canonical token at each position
  // Each round: a varlen layout, one row per key piece over the K/V buffer (token_source:
  // key_source), with a query side over the Q buffer; at least one row of each round has queries.
  std::vector<Layout> rounds;
};

// `varlen`: the whole scenario's varlen layout (its causal rule and window); `queries` and `keys`:
// pieces of its documents, each list free of overlaps. Throws std::invalid_argument on a piece
// outside its document, or a buffer past the positions an int holds.
CpPieceLayouts cp_piece_layouts(const Layout& varlen, const std::vector<CpPiece>& queries,
                                const std::vector<CpPiece>& keys);

}  // namespace attnlab
