#include "core/cost/context_parallel.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace attnlab {

namespace {

// The varlen layout holds document d in row d, each row as long as its document.
int doc_length(const LayoutView& v, int doc) { return v.row_valid[doc]; }

// Useful scores (one head) of a whole document: the work the documents strategy balances.
std::int64_t document_work(const LayoutView& v, int doc) {
  const int length = doc_length(v, doc);
  return attended_pairs(v, 0, length, 0, length);
}

// A rank's pieces are maximal runs of a document's tokens: a piece that continues the
// rank's last one (zigzag's rank N - 1 holds the two middle chunks) extends it.
void add_piece(CpPlan& plan, int rank, const CpPiece& piece) {
  if (piece.tokens() == 0) return;
  std::vector<CpPiece>& pieces = plan.pieces[rank];
  if (!pieces.empty() && pieces.back().doc == piece.doc && pieces.back().end == piece.first)
    pieces.back().end = piece.end;
  else
    pieces.push_back(piece);
}

// Calls f(index, piece) for each non-empty piece of document `doc` cut into `count`
// (document_piece), in order, in min(length, count) steps: a document shorter than `count`
// has pieces of one token, token t in the first index j with floor((j + 1) length / count) > t.
template <class F>
void for_each_piece(int doc, int length, int count, F f) {
  if (length >= count) {
    for (int j = 0; j < count; ++j) f(j, document_piece(doc, length, j, count));
    return;
  }
  for (int t = 0; t < length; ++t)
    f(int((std::int64_t(t + 1) * count + length - 1) / length) - 1, CpPiece{doc, t, t + 1});
}

// Whole documents, the most work first, each onto the rank with the least work so far
// (the lowest rank among equals).
void assign_documents(const LayoutView& v, CpPlan& plan) {
  std::vector<int> order(v.num_rows);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> work(v.num_rows);
  for (int d = 0; d < v.num_rows; ++d) work[d] = document_work(v, d);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return work[a] > work[b]; });
  std::set<std::pair<std::int64_t, int>> load;  // (work so far, rank): the first is the least loaded
  for (int r = 0; r < plan.ranks(); ++r) load.insert({0, r});
  for (int d : order) {
    auto [assigned, rank] = *load.begin();
    load.erase(load.begin());
    add_piece(plan, rank, {d, 0, doc_length(v, d)});
    load.insert({assigned + work[d], rank});
  }
  for (auto& pieces : plan.pieces)
    std::sort(pieces.begin(), pieces.end(), [](const CpPiece& a, const CpPiece& b) { return a.doc < b.doc; });
}

// What one kernel row computes running the queries of a piece against the keys of its
// document: query tiles from the piece's first query, key tiles from the document's first
// key, and for each query tile the key tiles holding a key some query of the tile attends
// (the rule of key_tiles_visited, asked of attended_keys because the query tiles start
// mid-row). Queries of the last tile past the piece's end are padding: another rank's.
struct PieceCount {
  CellCounts cells;
  std::int64_t tiles = 0;
};
PieceCount count_piece(const LayoutView& v, TileShape t, const CpPiece& p) {
  PieceCount count;
  for (int q0 = p.first; q0 < p.end; q0 += t.rows) {
    const int rows = std::min(t.rows, p.end - q0);
    const int kt_first = attended_keys(v, p.doc, q0).first / t.cols;
    const int kt_end = attended_keys(v, p.doc, q0 + rows - 1).last / t.cols + 1;
    const int width = (kt_end - kt_first) * t.cols;
    // count_tile is additive over key tiles, so one tile as wide as the visited ones counts them all.
    count.cells += count_tile(v, p.doc, q0, kt_first * t.cols, TileShape{rows, width});
    count.cells[CellKind::padding] += std::int64_t(t.rows - rows) * width;
    count.tiles += kt_end - kt_first;
  }
  return count;
}

// Tokens of other ranks' pieces that the queries of `pieces` (one rank's, in document
// order) attend: the union of the pieces' attended ranges (piece_attended_keys, each holding
// its piece) less the rank's own tokens.
std::int64_t keys_needed_from_others(const LayoutView& v, const std::vector<CpPiece>& pieces) {
  std::int64_t attended = 0, own = 0;
  for (std::size_t i = 0; i < pieces.size();) {
    const int doc = pieces[i].doc;
    int reach = 0;  // keys [0, reach) of the document are counted; the ranges start in order
    for (; i < pieces.size() && pieces[i].doc == doc; ++i) {
      const KeyRange keys = piece_attended_keys(v, pieces[i]);
      attended += std::max(0, keys.last + 1 - std::max(keys.first, reach));
      reach = std::max(reach, keys.last + 1);
      own += pieces[i].tokens();
    }
  }
  return attended - own;
}

// Tokens of each rank's shard.
std::vector<std::int64_t> travelling_shards(const CpPlan& plan) {
  std::vector<std::int64_t> tokens;
  for (const std::vector<CpPiece>& shard : cp_shards(plan)) tokens.push_back(tokens_of(shard));
  return tokens;
}

// Each rank's count / the mean over the ranks, into `ratio`; returns the largest (max / mean).
double set_vs_mean(std::vector<CpRankCost>& ranks, std::int64_t (CpRankCost::*count)() const,
                   double CpRankCost::*ratio) {
  std::int64_t total = 0;
  for (const CpRankCost& r : ranks) total += (r.*count)();
  double most = 0;
  for (CpRankCost& r : ranks) {
    r.*ratio = total == 0 ? 0.0 : double((r.*count)()) * double(ranks.size()) / double(total);
    most = std::max(most, r.*ratio);
  }
  return most;
}

}  // namespace

const char* cp_strategy_name(CpStrategy strategy) {
  switch (strategy) {
    case CpStrategy::contiguous: return "contiguous";
    case CpStrategy::zigzag: return "zigzag";
    case CpStrategy::documents: return "documents";
  }
  return "?";
}

std::optional<CpStrategy> parse_cp_strategy(std::string_view name) {
  for (CpStrategy s : all_cp_strategies)
    if (name == cp_strategy_name(s)) return s;
  return std::nullopt;
}

std::int64_t tokens_of(const std::vector<CpPiece>& pieces) {
  std::int64_t tokens = 0;
  for (const CpPiece& p : pieces) tokens += p.tokens();
  return tokens;
}

CpPiece document_piece(int doc, int length, int index, int count) {
  const auto cut = [&](int i) { return static_cast<int>(std::int64_t(i) * length / count); };
  return {doc, cut(index), cut(index + 1)};
}

CpPlan plan_context_parallel(const Layout& varlen, int ranks, CpStrategy strategy) {
  if (varlen.kind != LayoutKind::varlen) throw std::invalid_argument("plan_context_parallel: expected a varlen layout");
  if (ranks < 1 || ranks > max_cp_ranks)
    throw std::invalid_argument("plan_context_parallel: ranks must be 1 to " + std::to_string(max_cp_ranks) + ", got " +
                                std::to_string(ranks));
  const LayoutView v = varlen.view();
  CpPlan plan{strategy, std::vector<std::vector<CpPiece>>(ranks)};
  switch (strategy) {
    case CpStrategy::contiguous:
      for (int d = 0; d < v.num_rows; ++d)
        for_each_piece(d, doc_length(v, d), ranks, [&](int j, const CpPiece& p) { add_piece(plan, j, p); });
      break;
    case CpStrategy::zigzag:
      // Chunks in order: rank i gets chunk i, then chunk 2N - 1 - i, so its pieces stay in order.
      for (int d = 0; d < v.num_rows; ++d)
        for_each_piece(d, doc_length(v, d), 2 * ranks,
                       [&](int j, const CpPiece& p) { add_piece(plan, j < ranks ? j : 2 * ranks - 1 - j, p); });
      break;
    case CpStrategy::documents: assign_documents(v, plan); break;
  }
  return plan;
}

std::int64_t CpCost::total(std::int64_t CpRankCost::*field) const {
  std::int64_t sum = 0;
  for (const CpRankCost& r : ranks) sum += r.*field;
  return sum;
}

std::int64_t CpCost::total_scores_computed() const {
  std::int64_t sum = 0;
  for (const CpRankCost& r : ranks) sum += r.scores_computed();
  return sum;
}

CpCost model_context_parallel(const Scenario& s, int ranks, CpStrategy strategy, TileShape tile) {
  const Layout varlen = s.varlen_layout();
  const LayoutView v = varlen.view();
  CpCost c;
  c.plan = plan_context_parallel(varlen, ranks, strategy);
  c.tile = tile;
  c.kv_bytes_per_token = 2 * std::int64_t(s.kv_heads) * s.head_dim * dtype_bytes(s.dtype);
  const std::vector<std::int64_t> shard = travelling_shards(c.plan);
  const std::int64_t shards = std::accumulate(shard.begin(), shard.end(), std::int64_t{0});
  const std::int64_t largest_shard = *std::max_element(shard.begin(), shard.end());
  for (int r = 0; r < ranks; ++r) {
    CpRankCost rank;
    for (const CpPiece& p : c.plan.pieces[r]) {
      const PieceCount count = count_piece(v, tile, p);
      rank.tokens += p.tokens();
      rank.scores += count.cells.times(s.heads);
      rank.tiles_visited += count.tiles * s.heads;
    }
    rank.kv_bytes_ring = (shards - shard[r]) * c.kv_bytes_per_token;
    rank.kv_bytes_all_gather = (ranks - 1) * largest_shard * c.kv_bytes_per_token;
    rank.kv_bytes_needed = keys_needed_from_others(v, c.plan.pieces[r]) * c.kv_bytes_per_token;
    c.ranks.push_back(rank);
  }
  c.useful_imbalance = set_vs_mean(c.ranks, &CpRankCost::scores_useful, &CpRankCost::useful_vs_mean);
  c.computed_imbalance = set_vs_mean(c.ranks, &CpRankCost::scores_computed, &CpRankCost::computed_vs_mean);
  for (int d = 0; d < v.num_rows; ++d)
    c.one_gpu_scores_computed += count_piece(v, tile, {d, 0, doc_length(v, d)}).cells.computed() * s.heads;
  return c;
}

KeyRange piece_attended_keys(const LayoutView& v, const CpPiece& p) {
  return {attended_keys(v, p.doc, p.first).first, attended_keys(v, p.doc, p.end - 1).last};
}

CpPiece piece_queries_attending(const LayoutView& v, const CpPiece& queries, const CpPiece& keys) {
  if (queries.doc != keys.doc || queries.tokens() == 0 || keys.tokens() == 0) return {queries.doc, 0, 0};
  // The first query of [lo, hi) for which `past` holds, `past` false and then true along the queries.
  const auto first_where = [&](int lo, int hi, auto past) {
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (past(attended_keys(v, queries.doc, mid)))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  };
  // Attending the piece: the last key reaches its first, and the first key is not past its last.
  const int first = first_where(queries.first, queries.end, [&](KeyRange k) { return k.last >= keys.first; });
  const int end = first_where(first, queries.end, [&](KeyRange k) { return k.first >= keys.end; });
  return first < end ? CpPiece{queries.doc, first, end} : CpPiece{queries.doc, 0, 0};
}

std::vector<std::vector<CpPiece>> cp_shards(const CpPlan& plan) {
  int documents = 0;
  for (const auto& pieces : plan.pieces)
    for (const CpPiece& p : pieces) documents = std::max(documents, p.doc + 1);
  std::vector<int> holders(documents, 0), last_holder(documents, -1);
  for (int r = 0; r < plan.ranks(); ++r)
    for (const CpPiece& p : plan.pieces[r])
      if (last_holder[p.doc] != r) {
        last_holder[p.doc] = r;
        ++holders[p.doc];
      }
  std::vector<std::vector<CpPiece>> shards(plan.ranks());
  for (int r = 0; r < plan.ranks(); ++r)
    for (const CpPiece& p : plan.pieces[r])
      if (holders[p.doc] > 1) shards[r].push_back(p);
  return shards;
}

const char* cp_exchange_name(CpExchange exchange) {
  switch (exchange) {
    case CpExchange::ring: return "ring";
    case CpExchange::all_gather: return "all-gather";
  }
  return "?";
}

std::optional<CpExchange> parse_cp_exchange(std::string_view name) {
  for (CpExchange e : all_cp_exchanges)
    if (name == cp_exchange_name(e)) return e;
  return std::nullopt;
}

std::vector<std::vector<int>> cp_schedule(CpExchange exchange, int rank, int ranks) {
  std::vector<int> holders;
  for (int s = 0; s < ranks; ++s) holders.push_back(((rank - s) % ranks + ranks) % ranks);
  if (exchange == CpExchange::all_gather) return {holders};
  std::vector<std::vector<int>> steps;
  for (int holder : holders) steps.push_back({holder});
  return steps;
}

std::vector<CpPiece> cp_step_keys(const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards, int rank,
                                  const std::vector<int>& holders) {
  std::vector<CpPiece> keys;
  for (int holder : holders) {
    const std::vector<CpPiece>& held = holder == rank ? plan.pieces[rank] : shards[holder];
    keys.insert(keys.end(), held.begin(), held.end());
  }
  return keys;
}

}  // namespace attnlab
