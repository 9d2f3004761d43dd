#pragma once
// Context parallelism (CP): a scenario's documents split over N ranks, each rank
// computing attention for the queries it holds against every key they attend,
// receiving from the other ranks the K/V it does not hold. The model says, per rank,
// the scores computed, the K/V bytes received and the load imbalance, for three
// strategies. Every rule and formula is written in core/cost/README.md, "Context
// parallelism"; the mask and the tile counts are core/layout/layout.hpp's.
#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

enum class CpStrategy {
  contiguous,  // each document cut into N pieces, piece i on rank i
  zigzag,      // each document cut into 2N chunks, rank i holding chunks i and 2N - 1 - i
  documents,   // whole documents, longest first (by useful scores) onto the rank with the least work
};

inline constexpr std::array<CpStrategy, 3> all_cp_strategies = {CpStrategy::contiguous, CpStrategy::zigzag,
                                                                CpStrategy::documents};

const char* cp_strategy_name(CpStrategy strategy);
std::optional<CpStrategy> parse_cp_strategy(std::string_view name);

// The most ranks the model takes (a CP group far beyond any machine's GPUs).
inline constexpr int max_cp_ranks = 1024;

// The queries [first, end) of document `doc` (positions inside the document) that one
// rank holds, with the K and V of the same tokens.
struct CpPiece {
  int doc = 0;
  int first = 0;
  int end = 0;
  int tokens() const { return end - first; }
  bool operator==(const CpPiece&) const = default;
};

// Tokens of some pieces together.
std::int64_t tokens_of(const std::vector<CpPiece>& pieces);

// [first, end) of piece `index` when a document of `length` tokens is cut into `count`
// pieces: [floor(index * length / count), floor((index + 1) * length / count)), so pieces
// differ by at most one token and a document shorter than `count` leaves some empty.
CpPiece document_piece(int doc, int length, int index, int count);

// Which rank holds which pieces: pieces[rank], in document order, each a maximal run of
// one document's tokens (adjacent pieces of a rank merged, empty ones left out).
struct CpPlan {
  CpStrategy strategy = CpStrategy::contiguous;
  std::vector<std::vector<CpPiece>> pieces;
  int ranks() const { return static_cast<int>(pieces.size()); }
};

// The pieces of the documents of a varlen layout (its mask weighs the documents strategy's
// work). Throws std::invalid_argument unless 1 <= ranks <= max_cp_ranks.
CpPlan plan_context_parallel(const Layout& varlen, int ranks, CpStrategy strategy);

// One rank's work and traffic; scores over all heads, bytes over all KV heads.
struct CpRankCost {
  std::int64_t tokens = 0;               // queries held (and their K/V)
  CellCounts scores;                     // computed at the tile, by cell kind; useful is tile-free
  std::int64_t tiles_visited = 0;        // (query tile, key tile) pairs, all heads
  std::int64_t kv_bytes_ring = 0;        // received over the ring's N - 1 steps
  std::int64_t kv_bytes_all_gather = 0;  // received by one all-gather of equal counts
  std::int64_t kv_bytes_needed = 0;      // K/V of other ranks' tokens its queries attend
  double useful_vs_mean = 0;             // useful scores / the mean over the ranks
  double computed_vs_mean = 0;           // scores computed / the mean over the ranks
  std::int64_t scores_computed() const { return scores.computed(); }
  std::int64_t scores_useful() const { return scores[CellKind::useful]; }
};

struct CpCost {
  CpPlan plan;
  TileShape tile;
  std::int64_t kv_bytes_per_token = 0;  // K and V of one token, all KV heads
  std::vector<CpRankCost> ranks;
  double useful_imbalance = 0;               // the largest useful_vs_mean: max / mean
  double computed_imbalance = 0;             // the largest computed_vs_mean
  std::int64_t one_gpu_scores_computed = 0;  // the whole scenario on one rank (varlen)

  std::int64_t total(std::int64_t CpRankCost::*field) const;
  std::int64_t total_scores_computed() const;
};

CpCost model_context_parallel(const Scenario& scenario, int ranks, CpStrategy strategy,
                              TileShape tile = default_flash_tile);

// ---- the forward's exchange, as plain data (reference/cp_forward.hpp runs it) ----

// The keys of its document that a piece's queries attend: one range, since attended_keys
// is one range per query and both its ends grow with the query.
KeyRange piece_attended_keys(const LayoutView& varlen, const CpPiece& piece);
// The queries of `queries` that attend some key of `keys` (a piece of K/V of any document): one
// range of them for the same reason, found by bisection; empty (no tokens) where none does.
CpPiece piece_queries_attending(const LayoutView& varlen, const CpPiece& queries, const CpPiece& keys);

// Per rank, its shard: its pieces of documents held by more than one rank, the K/V that
// travels. A document held whole by one rank never leaves it.
std::vector<std::vector<CpPiece>> cp_shards(const CpPlan& plan);

enum class CpExchange {
  ring,        // N steps; at step s rank r computes against the K/V held by rank (r - s) mod N
  all_gather,  // one step against every rank's K/V, gathered at once
};
inline constexpr std::array<CpExchange, 2> all_cp_exchanges = {CpExchange::ring, CpExchange::all_gather};
const char* cp_exchange_name(CpExchange exchange);  // "ring", "all-gather"
std::optional<CpExchange> parse_cp_exchange(std::string_view name);

// How a run over NCCL shares each GPU between its compute and its transfers
// (run/cp_over_nccl.hpp); the defaults are NCCL's own behaviour and double buffering.
struct CpTransferSettings {
  int sm_margin = 0;                // SMs each ring step's kernels leave to the transfer beside them
  int transfer_channels = 0;        // the ring's NCCL channels (CTAs), in a communicator of its own; 0: NCCL's
  bool registered_buffers = false;  // K/V buffers registered with NCCL: moved without its staging copy
  int ring_buffers = 2;             // the ring's receive buffers: a transfer waits for the step this many back
  auto operator<=>(const CpTransferSettings&) const = default;
};

// The ranks whose K/V rank `rank` computes its queries against, step by step: ring, step s:
// {(rank - s) mod N} (step 0 its own); all-gather: one step holding the ring's N holders.
// A rank's own K/V is all its pieces; another's is that rank's shard.
std::vector<std::vector<int>> cp_schedule(CpExchange exchange, int rank, int ranks);

// The K/V rank `rank` computes its queries against at one step of its schedule, `holders`
// (an element of cp_schedule): each holder's in turn, all its pieces for the rank itself and
// its shard (`shards`, cp_shards of the plan) for another rank.
std::vector<CpPiece> cp_step_keys(const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards, int rank,
                                  const std::vector<int>& holders);

}  // namespace attnlab
