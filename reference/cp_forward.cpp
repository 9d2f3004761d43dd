#include "reference/cp_forward.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace attnlab {

namespace {

// Every piece of the plan with the rank holding it, by document and first token: the pieces of
// a document that hold a key of a range are a run of this order (a plan's pieces do not overlap).
struct HeldPiece {
  CpPiece piece;
  int holder = 0;
};

std::vector<HeldPiece> held_pieces(const CpPlan& plan) {
  std::vector<HeldPiece> held;
  for (int r = 0; r < plan.ranks(); ++r)
    for (const CpPiece& p : plan.pieces[r]) held.push_back({p, r});
  std::sort(held.begin(), held.end(), [](const HeldPiece& a, const HeldPiece& b) {
    return std::pair(a.piece.doc, a.piece.first) < std::pair(b.piece.doc, b.piece.first);
  });
  return held;
}

// A query piece and the held piece (an index into held_pieces) of K/V it attends.
struct Hit {
  int query_piece = 0;
  std::size_t held = 0;
};

// One rank's forward. Its own K/V is all its pieces; another rank's is its shard, and a piece of
// another rank that a query attends is always in that rank's shard (both ranks hold its document).
// Buffers are reused from step to step: a ring of N ranks has N^2 steps.
CpRankForward cp_forward_rank(const Layout& varlen, const AttentionInputs& in, double scale, const CpPlan& plan,
                              const std::vector<HeldPiece>& held, const std::vector<std::int64_t>& shard_tokens,
                              CpExchange exchange, int rank) {
  const LayoutView view = varlen.view();
  const std::vector<CpPiece>& queries = plan.pieces[rank];
  const int ranks = plan.ranks();
  CpRankForward f;
  f.out = empty_cp_partial(queries, in.heads, in.head_dim);
  const std::vector<std::vector<int>> schedule = cp_schedule(exchange, rank, ranks);
  std::vector<int> step_of(ranks);
  for (std::size_t s = 0; s < schedule.size(); ++s)
    for (int holder : schedule[s]) step_of[holder] = int(s);
  // Which held pieces each query piece attends, then sorted by the step that brings them (a
  // counting sort, keeping each step's hits in query-piece order).
  std::vector<Hit> found;
  std::vector<std::size_t> step_begin(schedule.size() + 1, 0);
  std::vector<char> needed(ranks, 0);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const KeyRange reach = piece_attended_keys(view, queries[i]);
    auto at = std::partition_point(held.begin(), held.end(), [&](const HeldPiece& h) {
      return h.piece.doc < queries[i].doc || (h.piece.doc == queries[i].doc && h.piece.end <= reach.first);
    });
    for (; at != held.end() && at->piece.doc == queries[i].doc && at->piece.first <= reach.last; ++at) {
      found.push_back({int(i), std::size_t(at - held.begin())});
      ++step_begin[step_of[at->holder] + 1];
      if (at->holder != rank) needed[at->holder] = 1;
    }
  }
  for (std::size_t s = 1; s < step_begin.size(); ++s) step_begin[s] += step_begin[s - 1];
  std::vector<Hit> hits(found.size());
  std::vector<std::size_t> next(step_begin.begin(), step_begin.end() - 1);
  for (const Hit& h : found) hits[next[step_of[held[h.held].holder]]++] = h;
  for (int holder = 0; holder < ranks; ++holder)
    if (holder != rank) {
      f.keys_received += shard_tokens[holder];
      (needed[holder] ? f.blocks_needed : f.blocks_skipped) += 1;
    }
  std::vector<std::size_t> key_order;
  std::vector<CpPiece> keys, attending, runs;
  std::vector<std::int64_t> attended;
  for (std::size_t s = 0; s < schedule.size(); ++s) {
    if (step_begin[s] == step_begin[s + 1]) continue;
    const Hit *first = hits.data() + step_begin[s], *last = hits.data() + step_begin[s + 1];
    // The step's keys (the pieces hit, in document order) and, per query piece, the runs of its
    // queries that attend them: nothing else of the rank is computed or merged in this step.
    key_order.clear();
    for (const Hit* h = first; h != last; ++h) key_order.push_back(h->held);
    std::sort(key_order.begin(), key_order.end());
    key_order.erase(std::unique(key_order.begin(), key_order.end()), key_order.end());
    keys.clear();
    for (std::size_t k : key_order) keys.push_back(held[k].piece);
    attending.clear();
    for (const Hit* h = first; h != last;) {
      const int piece = h->query_piece;
      runs.clear();  // one per key piece hit, then joined where they meet
      for (; h != last && h->query_piece == piece; ++h)
        runs.push_back(piece_queries_attending(view, queries[piece], held[h->held].piece));
      std::sort(runs.begin(), runs.end(), [](const CpPiece& x, const CpPiece& y) { return x.first < y.first; });
      const std::size_t first_run = attending.size();
      for (const CpPiece& run : runs)
        if (attending.size() > first_run && attending.back().end >= run.first)
          attending.back().end = std::max(attending.back().end, run.end);
        else if (run.tokens() > 0)
          attending.push_back(run);
    }
    const CpPartial part = cp_partial_attention(varlen, in, scale, attending, keys, &attended);
    f.scores += part.scores;
    f.partial_values += static_cast<std::int64_t>(part.o.size());
    merge_partial(f.out, part);
    for (std::size_t b = 0; b < keys.size(); ++b)
      if (held[key_order[b]].holder != rank) f.keys_needed += attended[b];
  }
  return f;
}

}  // namespace

namespace {

// The sums behind a CpForwardError, value by value.
class ErrorSums {
 public:
  void add_output(double value, double reference) {
    diff_squares_ += (value - reference) * (value - reference);
    reference_squares_ += reference * reference;
  }
  void add_lse(double lse, double reference) {
    // Both -inf (a query attending nothing) agree; one alone is an infinite error.
    const double error = lse == reference ? 0.0 : std::abs(lse - reference);
    lse_max_abs_ = std::max(lse_max_abs_, std::isnan(error) ? HUGE_VAL : error);
  }
  CpForwardError error() const {
    CpForwardError e;
    e.rel_l2 = reference_squares_ > 0 ? std::sqrt(diff_squares_ / reference_squares_) : std::sqrt(diff_squares_);
    if (std::isnan(e.rel_l2)) e.rel_l2 = HUGE_VAL;  // a NaN output fails any tolerance
    e.lse_max_abs = lse_max_abs_;
    return e;
  }

 private:
  double diff_squares_ = 0, reference_squares_ = 0, lse_max_abs_ = 0;
};

}  // namespace

CpForwardError compare_cp_to_whole(const Layout& varlen, const CpPartial& out, const ReferenceOutput& whole) {
  ErrorSums sums;
  std::int64_t slot = 0;
  for (const CpPiece& piece : out.queries)
    for (int q = piece.first; q < piece.end; ++q, ++slot) {
      const std::int64_t pos = varlen.row_start[piece.doc] + q;
      for (int h = 0; h < out.heads; ++h) {
        const double* o = out.o_at(slot, h);
        for (int d = 0; d < out.head_dim; ++d) sums.add_output(o[d], whole.o_at(pos, h, d));
        sums.add_lse(out.lse_at(slot, h), whole.lse_at(pos, h));
      }
    }
  return sums.error();
}

CpForwardError compare_cp_partials(const CpPartial& candidate, const CpPartial& reference) {
  if (candidate.queries != reference.queries || candidate.heads != reference.heads ||
      candidate.head_dim != reference.head_dim)
    throw std::invalid_argument("compare_cp_partials: the partials hold different queries or shapes");
  ErrorSums sums;
  for (std::size_t i = 0; i < reference.o.size(); ++i) sums.add_output(candidate.o[i], reference.o[i]);
  for (std::size_t i = 0; i < reference.lse.size(); ++i) sums.add_lse(candidate.lse[i], reference.lse[i]);
  return sums.error();
}

CpForwardRun run_cp_forward(const Layout& varlen, const AttentionInputs& in, double scale, const CpPlan& plan,
                            CpExchange exchange, const ReferenceOutput& whole) {
  const std::vector<HeldPiece> held = held_pieces(plan);
  std::vector<std::int64_t> shard_tokens;
  for (const std::vector<CpPiece>& shard : cp_shards(plan)) shard_tokens.push_back(tokens_of(shard));
  CpForwardRun run;
  for (int rank = 0; rank < plan.ranks(); ++rank) {
    CpRankForward f = cp_forward_rank(varlen, in, scale, plan, held, shard_tokens, exchange, rank);
    const CpForwardError error = compare_cp_to_whole(varlen, f.out, whole);
    run.worst_rel_l2 = std::max(run.worst_rel_l2, error.rel_l2);
    run.worst_lse_abs = std::max(run.worst_lse_abs, error.lse_max_abs);
    run.blocks_needed += f.blocks_needed;
    run.blocks_skipped += f.blocks_skipped;
    run.keys_received += f.keys_received;
    run.keys_needed += f.keys_needed;
    run.scores += f.scores;
    run.partial_values += f.partial_values;
    run.ranks.push_back(std::move(f));
  }
  return run;
}

}  // namespace attnlab
