#include "reference/cp_forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

bool attends_any(const LayoutView& view, const std::vector<CpPiece>& queries, const std::vector<CpPiece>& keys) {
  return std::any_of(queries.begin(), queries.end(), [&](const CpPiece& q) {
    return std::any_of(keys.begin(), keys.end(), [&](const CpPiece& k) { return piece_attends(view, q, k); });
  });
}

}  // namespace

CpRankForward cp_forward_rank(const Layout& varlen, const AttentionInputs& in, double scale, const CpPlan& plan,
                              const std::vector<std::vector<CpPiece>>& shards, CpExchange exchange, int rank) {
  const LayoutView view = varlen.view();
  const std::vector<CpPiece>& queries = plan.pieces[rank];
  CpRankForward f;
  f.out = empty_cp_partial(queries, in.heads, in.head_dim);
  for (const std::vector<int>& step : cp_schedule(exchange, rank, plan.ranks())) {
    std::vector<CpPiece> keys;
    std::vector<char> received;  // per key piece: 1 if another rank's
    for (int holder : step) {
      const bool own = holder == rank;
      const std::vector<CpPiece>& block = own ? queries : shards[holder];
      if (!own) {
        f.keys_received += tokens_of(block);
        if (!attends_any(view, queries, block)) {
          ++f.blocks_skipped;
          continue;
        }
        ++f.blocks_needed;
      }
      keys.insert(keys.end(), block.begin(), block.end());
      received.insert(received.end(), block.size(), own ? 0 : 1);
    }
    if (keys.empty()) continue;
    std::vector<std::int64_t> attended;
    merge_partial(f.out, cp_partial_attention(varlen, in, scale, queries, keys, &attended));
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (received[i]) f.keys_needed += attended[i];
  }
  return f;
}

CpForwardError compare_cp_to_whole(const Layout& varlen, const CpPartial& out, const ReferenceOutput& whole) {
  double diff_squares = 0, reference_squares = 0;
  CpForwardError error;
  std::int64_t slot = 0;
  for (const CpPiece& piece : out.queries)
    for (int q = piece.first; q < piece.end; ++q, ++slot) {
      const std::int64_t pos = varlen.row_start[piece.doc] + q;
      for (int h = 0; h < out.heads; ++h) {
        const double* o = out.o_at(slot, h);
        for (int d = 0; d < out.head_dim; ++d) {
          const double reference = whole.o_at(pos, h, d);
          diff_squares += (o[d] - reference) * (o[d] - reference);
          reference_squares += reference * reference;
        }
        const double lse = out.lse_at(slot, h), reference_lse = whole.lse_at(pos, h);
        // Both -inf (a query attending nothing) agree; one alone is an infinite error.
        const double lse_error = lse == reference_lse ? 0.0 : std::abs(lse - reference_lse);
        error.lse_max_abs = std::max(error.lse_max_abs, std::isnan(lse_error) ? HUGE_VAL : lse_error);
      }
    }
  error.rel_l2 = reference_squares > 0 ? std::sqrt(diff_squares / reference_squares) : std::sqrt(diff_squares);
  if (std::isnan(error.rel_l2)) error.rel_l2 = HUGE_VAL;  // a NaN output fails any tolerance
  return error;
}

CpForwardRun run_cp_forward(const Layout& varlen, const AttentionInputs& in, double scale, const CpPlan& plan,
                            CpExchange exchange, const ReferenceOutput& whole) {
  const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
  CpForwardRun run;
  for (int rank = 0; rank < plan.ranks(); ++rank) {
    CpRankForward f = cp_forward_rank(varlen, in, scale, plan, shards, exchange, rank);
    const CpForwardError error = compare_cp_to_whole(varlen, f.out, whole);
    run.worst_rel_l2 = std::max(run.worst_rel_l2, error.rel_l2);
    run.worst_lse_abs = std::max(run.worst_lse_abs, error.lse_max_abs);
    run.blocks_needed += f.blocks_needed;
    run.blocks_skipped += f.blocks_skipped;
    run.keys_received += f.keys_received;
    run.keys_needed += f.keys_needed;
    run.ranks.push_back(std::move(f));
  }
  return run;
}

}  // namespace attnlab
