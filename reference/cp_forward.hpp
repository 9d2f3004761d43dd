#pragma once
// A context-parallel forward on the fp64 reference: each rank of a CpPlan runs its queries
// against the K/V its exchange brings (cp_schedule: the ring's N steps or one all-gather),
// merging the partials by their LSE (cp_partial.hpp), with no transport: a rank reads
// another's K/V straight from the inputs. The merged output of each rank is compared with
// the whole varlen reference of the same inputs.
//
// What it costs follows the scores attended, not the ranks or the pieces: a query piece finds
// the pieces of K/V it attends among its own document's (by bisection), a step computes only
// the queries that attend its keys, and each query scores only the keys it attends. Over one
// exchange: the scores are the useful scores x heads, every one once; the partials' values are
// at most as many x head dim; the rest is ranks^2 + pieces x log(pieces).
#include <cstdint>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "reference/cp_partial.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab {

// One rank's forward. A block received from another rank (its shard) that holds no key
// the rank's queries attend is skipped, not computed; its own K/V is always computed.
struct CpRankForward {
  CpPartial out;                    // merged over every step
  int blocks_needed = 0;            // received blocks holding a key its queries attend
  int blocks_skipped = 0;           // received blocks holding none (or nothing at all)
  std::int64_t keys_received = 0;   // tokens of K/V received from other ranks
  std::int64_t keys_needed = 0;     // of those, the tokens its queries attend
  std::int64_t scores = 0;          // (query, key, head) scores evaluated
  std::int64_t partial_values = 0;  // values of the partials made and merged (queries x heads x head dim)
};

// A rank's merged output against the whole varlen reference (every head of both); a NaN
// counts as an infinite error.
struct CpForwardError {
  double rel_l2 = 0;       // ||o - reference||_2 / ||reference||_2 over the rank's queries
  double lse_max_abs = 0;  // max |LSE - reference LSE|
};
CpForwardError compare_cp_to_whole(const Layout& varlen, const CpPartial& rank_out, const ReferenceOutput& whole);
// The same between two partials of the same queries and shape (a GPU's against the reference's,
// or against another run's); throws std::invalid_argument otherwise.
CpForwardError compare_cp_partials(const CpPartial& candidate, const CpPartial& reference);

// Every rank of a plan under one exchange, each checked against the whole reference.
struct CpForwardRun {
  std::vector<CpRankForward> ranks;
  double worst_rel_l2 = 0;  // the largest over the ranks
  double worst_lse_abs = 0;
  // Over all ranks:
  int blocks_needed = 0, blocks_skipped = 0;
  std::int64_t keys_received = 0, keys_needed = 0;
  std::int64_t scores = 0, partial_values = 0;
};
CpForwardRun run_cp_forward(const Layout& varlen, const AttentionInputs& canonical, double scale, const CpPlan& plan,
                            CpExchange exchange, const ReferenceOutput& whole);

}  // namespace attnlab
