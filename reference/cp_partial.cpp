#include "reference/cp_partial.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "reference/computed_part.hpp"
#include "reference/online_softmax.hpp"

namespace attnlab {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// The key pieces sorted by document and first key: those of one document that hold a key of a
// range are a run of this order (the pieces do not overlap), found by bisection.
class KeyPieces {
 public:
  explicit KeyPieces(const std::vector<CpPiece>& keys) : keys_(keys) {
    for (std::size_t b = 0; b < keys.size(); ++b)
      if (keys[b].tokens() > 0) order_.push_back(b);
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(keys[a].doc, keys[a].first) < std::pair(keys[b].doc, keys[b].first);
    });
  }
  // Indices into `keys` of the pieces of `doc` holding a key of [range.first, range.last], in key order.
  std::span<const std::size_t> holding(int doc, KeyRange range) const {
    const auto first = std::partition_point(order_.begin(), order_.end(), [&](std::size_t b) {
      return keys_[b].doc < doc || (keys_[b].doc == doc && keys_[b].end <= range.first);
    });
    auto end = first;
    while (end != order_.end() && keys_[*end].doc == doc && keys_[*end].first <= range.last) ++end;
    return {first, end};
  }

 private:
  const std::vector<CpPiece>& keys_;
  std::vector<std::size_t> order_;
};

// Per key piece, the tokens of the union of its ranges [first, end): (piece, first, end) sorted.
std::vector<std::int64_t> union_tokens(std::vector<std::tuple<std::size_t, int, int>> ranges, std::size_t pieces) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::int64_t> tokens(pieces, 0);
  std::size_t piece = pieces;
  int reach = 0;  // the piece's tokens before it are counted
  for (const auto& [b, first, end] : ranges) {
    if (b != piece) piece = b, reach = first;
    tokens[b] += std::max(0, end - std::max(first, reach));
    reach = std::max(reach, end);
  }
  return tokens;
}

}  // namespace

CpPartial empty_cp_partial(const std::vector<CpPiece>& queries, int heads, int head_dim) {
  CpPartial out;
  out.queries = queries;
  out.heads = heads;
  out.head_dim = head_dim;
  const std::size_t values = static_cast<std::size_t>(tokens_of(queries)) * heads;
  out.lse.assign(values, minus_infinity);
  out.o.assign(values * head_dim, 0.0);
  return out;
}

CpPartial cp_partial_attention(const Layout& varlen, const AttentionInputs& in, double scale,
                               const std::vector<CpPiece>& queries, const std::vector<CpPiece>& keys,
                               std::vector<std::int64_t>* keys_attended) {
  if (varlen.kind != LayoutKind::varlen) throw std::invalid_argument("cp_partial_attention: expected a varlen layout");
  check_reference_inputs(varlen, in);
  const LayoutView view = varlen.view();
  const KeyPieces pieces(keys);
  CpPartial out = empty_cp_partial(queries, in.heads, in.head_dim);
  std::vector<std::tuple<std::size_t, int, int>> attended_ranges;  // (key piece, first, end)
  std::vector<double> scores;
  std::vector<int> score_key;
  std::int64_t first_slot = 0;
  for (const CpPiece& piece : queries) {
    const KeyRange reach = piece.tokens() > 0 ? piece_attended_keys(view, piece) : KeyRange{};
    const std::span<const std::size_t> blocks = pieces.holding(piece.doc, reach);
    // The keys some query of the piece attends: its reach, as its ranges' union is one range.
    for (std::size_t b : blocks)
      if (keys_attended)
        attended_ranges.emplace_back(b, std::max(keys[b].first, reach.first), std::min(keys[b].end, reach.last + 1));
    const std::int64_t token0 = varlen.row_start[piece.doc];  // the document's first token in the buffer
    for (int h = 0; h < in.heads && !blocks.empty(); ++h) {
      const int kv_head = in.kv_head_of(h);
      for (int q = piece.first; q < piece.end; ++q) {
        // The scores of the keys of the blocks this query attends, then their softmax and P·V.
        const KeyRange attended = attended_keys(view, piece.doc, q);
        const float* query = in.q_at(token0 + q, h);
        scores.clear();
        score_key.clear();
        for (std::size_t b : blocks)
          for (int k = std::max(keys[b].first, attended.first); k < std::min(keys[b].end, attended.last + 1); ++k) {
            scores.push_back(scaled_dot(query, in.k_at(token0 + k, kv_head), in.head_dim, scale));
            score_key.push_back(k);
          }
        if (scores.empty()) continue;
        out.scores += static_cast<std::int64_t>(scores.size());
        const std::int64_t slot = first_slot + (q - piece.first);
        const double max = *std::max_element(scores.begin(), scores.end());
        double sum = 0;
        double* o = out.o_at(slot, h);
        for (std::size_t i = 0; i < scores.size(); ++i) {
          const double weight = std::exp(scores[i] - max);
          sum += weight;
          const float* v = in.v_at(token0 + score_key[i], kv_head);
          for (int d = 0; d < in.head_dim; ++d) o[d] += weight * double(v[d]);
        }
        for (int d = 0; d < in.head_dim; ++d) o[d] /= sum;
        out.lse_at(slot, h) = max + std::log(sum);
      }
    }
    first_slot += piece.tokens();
  }
  if (keys_attended) *keys_attended = union_tokens(std::move(attended_ranges), keys.size());
  return out;
}

void merge_by_lse(double& lse, double* o, double part_lse, const double* part_o, int head_dim) {
  if (part_lse == minus_infinity) return;  // the part holds no key: nothing to add
  if (lse == minus_infinity) {
    lse = part_lse;
    std::copy_n(part_o, head_dim, o);
    return;
  }
  // log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)), which cannot overflow.
  const double merged = std::max(lse, part_lse) + std::log1p(std::exp(-std::abs(lse - part_lse)));
  const double weight = std::exp(lse - merged), part_weight = std::exp(part_lse - merged);
  for (int d = 0; d < head_dim; ++d) o[d] = weight * o[d] + part_weight * part_o[d];
  lse = merged;
}

void merge_partial(CpPartial& into, const CpPartial& part) {
  if (into.heads != part.heads || into.head_dim != part.head_dim)
    throw std::invalid_argument("merge_partial: the partials have different shapes");
  std::size_t i = 0;           // the piece of `into` holding the part's piece
  std::int64_t into_slot = 0;  // the slot of its first query
  std::int64_t part_slot = 0;
  int merged_to = 0;  // the part's queries before it in piece i are merged: the next starts at or after
  for (const CpPiece& p : part.queries) {
    const auto holds = [&](const CpPiece& whole) {
      return whole.doc == p.doc && whole.first <= p.first && p.end <= whole.end;
    };
    for (; i < into.queries.size() && !(holds(into.queries[i]) && p.first >= merged_to); ++i) {
      into_slot += into.queries[i].tokens();
      merged_to = 0;
    }
    if (i == into.queries.size())
      throw std::invalid_argument("merge_partial: the part holds queries the whole does not, or out of order");
    const std::int64_t at = into_slot + (p.first - into.queries[i].first);
    for (int q = 0; q < p.tokens(); ++q)
      for (int h = 0; h < into.heads; ++h)
        merge_by_lse(into.lse_at(at + q, h), into.o_at(at + q, h), part.lse_at(part_slot + q, h),
                     part.o_at(part_slot + q, h), into.head_dim);
    part_slot += p.tokens();
    merged_to = p.end;
  }
}

}  // namespace attnlab
