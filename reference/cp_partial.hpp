#pragma once
// Context parallelism's arithmetic, in fp64: a rank's queries against some blocks of K/V
// (a partial result, softmax over those keys alone, with its log-sum-exp), and the merge
// of partials by their LSE, which gives what one softmax over all their keys gives:
//   lse = log(exp(lse_a) + exp(lse_b)),  o = exp(lse_a - lse) * o_a + exp(lse_b - lse) * o_b.
// Which keys a query attends is core/layout/layout.hpp's (attended_keys on the varlen layout).
#include <cstdint>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/layout/layouts.hpp"
#include "reference/attention_inputs.hpp"

namespace attnlab {

// One rank's outputs over some keys: query slot i is the i-th token of `queries` in order.
struct CpPartial {
  std::vector<CpPiece> queries;
  int heads = 0;
  int head_dim = 0;
  std::vector<double> o;    // [query][head][head_dim], normalized over the keys that took part (0 where none)
  std::vector<double> lse;  // [query][head], natural log; -inf where no key took part
  std::int64_t scores = 0;  // (query, key, head) scores evaluated to make it: what it cost

  std::int64_t query_count() const { return static_cast<std::int64_t>(lse.size()) / (heads > 0 ? heads : 1); }
  double* o_at(std::int64_t query, int head) { return o.data() + (query * heads + head) * head_dim; }
  const double* o_at(std::int64_t query, int head) const { return o.data() + (query * heads + head) * head_dim; }
  double& lse_at(std::int64_t query, int head) { return lse[query * heads + head]; }
  double lse_at(std::int64_t query, int head) const { return lse[query * heads + head]; }
};

// No key yet: O = 0, LSE = -inf for every query and head (the merge's identity).
CpPartial empty_cp_partial(const std::vector<CpPiece>& queries, int heads, int head_dim);

// Every head of `canonical` (the varlen buffer's order): each query of `queries` against the
// keys of `keys` (pieces of K/V that do not overlap; those of other documents take no part) that
// it attends, in key order. Each query scores only the keys it attends (core/layout/layout.hpp's
// attended_keys), found among the pieces of its own document by bisection: the cost follows the
// scores attended, not the pieces or the documents' lengths. keys_attended, when given, gets per
// key piece the tokens some query attends.
CpPartial cp_partial_attention(const Layout& varlen, const AttentionInputs& canonical, double scale,
                               const std::vector<CpPiece>& queries, const std::vector<CpPiece>& keys,
                               std::vector<std::int64_t>* keys_attended = nullptr);

// The LSE merge of one (query, head): folds (part_lse, part_o) into (lse, o).
void merge_by_lse(double& lse, double* o, double part_lse, const double* part_o, int head_dim);

// merge_by_lse over every query and head of `part`, whose pieces each lie inside a piece of
// `into` (the same pieces, or runs of them), both in document order, with the same heads and head
// dim. Throws std::invalid_argument otherwise.
void merge_partial(CpPartial& into, const CpPartial& part);

}  // namespace attnlab
