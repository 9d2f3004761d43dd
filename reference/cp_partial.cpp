#include "reference/cp_partial.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/computed_part.hpp"
#include "reference/online_softmax.hpp"

namespace attnlab {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// Indices of the key pieces holding a key some query of `piece` attends.
std::vector<std::size_t> blocks_reached(const LayoutView& view, const CpPiece& piece,
                                        const std::vector<CpPiece>& keys) {
  std::vector<std::size_t> blocks;
  for (std::size_t b = 0; b < keys.size(); ++b)
    if (piece_attends(view, piece, keys[b])) blocks.push_back(b);
  return blocks;
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
  CpPartial out = empty_cp_partial(queries, in.heads, in.head_dim);
  // Per key piece, a mark on each of its tokens that some query attends (head 0 marks them).
  std::vector<std::vector<char>> attended_mark(keys.size());
  for (std::size_t b = 0; b < keys.size(); ++b) attended_mark[b].assign(keys[b].tokens(), 0);
  std::vector<double> scores;
  std::vector<int> score_key;
  std::int64_t first_slot = 0;
  for (const CpPiece& piece : queries) {
    const std::vector<std::size_t> blocks = blocks_reached(view, piece, keys);
    for (int h = 0; h < in.heads && !blocks.empty(); ++h) {
      const RowHeadOperands ops = load_row_head(varlen, in, piece.doc, h);
      for (int q = piece.first; q < piece.end; ++q) {
        // The scores of the keys of the blocks this query attends, then their softmax and P·V.
        const KeyRange attended = attended_keys(view, piece.doc, q);
        scores.clear();
        score_key.clear();
        for (std::size_t b : blocks)
          for (int k = std::max(keys[b].first, attended.first); k < std::min(keys[b].end, attended.last + 1); ++k) {
            scores.push_back(ops.score(q, k, scale));
            score_key.push_back(k);
            if (h == 0) attended_mark[b][k - keys[b].first] = 1;
          }
        if (scores.empty()) continue;
        const std::int64_t slot = first_slot + (q - piece.first);
        const double max = *std::max_element(scores.begin(), scores.end());
        double sum = 0;
        double* o = out.o_at(slot, h);
        for (std::size_t i = 0; i < scores.size(); ++i) {
          const double weight = std::exp(scores[i] - max);
          sum += weight;
          const double* v = ops.v_at(score_key[i]);
          for (int d = 0; d < in.head_dim; ++d) o[d] += weight * v[d];
        }
        for (int d = 0; d < in.head_dim; ++d) o[d] /= sum;
        out.lse_at(slot, h) = max + std::log(sum);
      }
    }
    first_slot += piece.tokens();
  }
  if (keys_attended) {
    keys_attended->assign(keys.size(), 0);
    for (std::size_t b = 0; b < keys.size(); ++b)
      (*keys_attended)[b] = std::count(attended_mark[b].begin(), attended_mark[b].end(), 1);
  }
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
  if (into.queries != part.queries || into.heads != part.heads || into.head_dim != part.head_dim)
    throw std::invalid_argument("merge_partial: the partials hold different queries or shapes");
  for (std::int64_t q = 0; q < into.query_count(); ++q)
    for (int h = 0; h < into.heads; ++h)
      merge_by_lse(into.lse_at(q, h), into.o_at(q, h), part.lse_at(q, h), part.o_at(q, h), into.head_dim);
}

}  // namespace attnlab
