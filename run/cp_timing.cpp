#include "run/cp_timing.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "core/layout/tile_name.hpp"

#include "kernels/context_parallel.hpp"
#include "run/cp_rank_steps.hpp"

namespace attnlab {

double CpExchangeTimes::slowest_us() const {
  double slowest = 0;
  for (const CpRankTime& r : ranks) slowest = std::max(slowest, r.compute.median_us);
  return slowest;
}

double CpExchangeTimes::mean_us() const {
  double sum = 0;
  for (const CpRankTime& r : ranks) sum += r.compute.median_us;
  return ranks.empty() ? 0 : sum / double(ranks.size());
}

double CpExchangeTimes::slowest_run_us() const {
  double slowest = 0;
  for (const CpRankTime& r : ranks)
    if (r.transfer) slowest = std::max(slowest, r.transfer->wall_us);
  return slowest;
}

double CpExchangeTimes::most_exposed_us() const {
  double most = 0;
  for (const CpRankTime& r : ranks)
    if (r.transfer) most = std::max(most, r.transfer->exposed_us);
  return most;
}

std::vector<ResultRow> cp_result_rows(const Scenario& s, const std::vector<CpCost>& models, const CpTimes& times,
                                      const RunInfo& run) {
  std::vector<ResultRow> rows;
  for (const CpExchangeTimes& e : times.exchanges) {
    const auto model =
        std::find_if(models.begin(), models.end(), [&](const CpCost& c) { return c.plan.strategy == e.strategy; });
    if (model == models.end()) throw std::invalid_argument("cp_result_rows: no model of a strategy the run ran");
    for (std::size_t i = 0; i < e.ranks.size(); ++i) {
      const CpRankTime& r = e.ranks[i];
      ResultRow row = measured_result_row(s, Implementation::varlen, times.kernel, r.compute, run);
      row.tile = tile_name(model->tile);
      row.tokens = model->ranks[i].tokens;
      row.scores_computed = r.scores_computed;
      row.scores_useful = model->ranks[i].scores_useful();
      row.rel_l2_error = r.rel_l2;
      row.ranks = int(e.ranks.size());
      row.cp_strategy = cp_strategy_name(e.strategy);
      row.cp_exchange = cp_exchange_name(e.exchange);
      row.cp_rank = int(i);
      row.cp_gpus = times.gpus;
      row.cp_whole_us = times.whole.median_us;
      if (r.transfer) {
        row.cp_run_us = r.transfer->wall_us;
        row.cp_transfer_us = r.transfer->transfer_us;
        row.cp_exposed_us = r.transfer->exposed_us;
        row.cp_kv_bytes_received = r.transfer->bytes_received;
        set_cp_transfer_settings(row, times.settings);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

CpPartial cp_partial_of(const CpOutputSums& sums, const std::vector<CpPiece>& queries) {
  CpPartial out = empty_cp_partial(queries, sums.problem().heads, sums.problem().head_dim);
  const std::vector<float> o = sums.download_o(), lse = sums.download_lse();
  out.o.assign(o.begin(), o.end());
  out.lse.assign(lse.begin(), lse.end());
  return out;
}

namespace {

// One rank: its steps' compute timed and its output checked.
CpRankTime time_rank(const CpWholeRun& whole, FlashKernel kernel, const CpPlan& plan,
                     const std::vector<std::vector<CpPiece>>& shards, CpExchange exchange, int rank, int warmup,
                     int reps) {
  const AttentionProblem& p = whole.problem;
  const CpRankSteps steps(whole.varlen, plan, shards, exchange, rank, kernel, p.heads);
  std::vector<std::unique_ptr<CpStepTensors>> tensors;
  for (const auto& pieces : steps.pieces)
    tensors.push_back(pieces ? std::make_unique<CpStepTensors>(*pieces, whole.canonical, p) : nullptr);
  CpOutputSums sums(tokens_of(plan.pieces[rank]), p);
  const auto run = [&] {
    sums.clear();
    for (std::size_t s = 0; s < tensors.size(); ++s)
      if (tensors[s])
        sums.add(kernel, *steps.pieces[s], tensors[s]->q.data(), tensors[s]->k.data(), tensors[s]->v.data());
  };
  CpRankTime out = steps.counted();
  out.compute = time_on_gpu(run, warmup, reps);
  whole.check(sums, plan.pieces[rank], out);
  return out;
}

}  // namespace

CpTimes time_context_parallel(const Scenario& scenario, const std::vector<CpPlan>& plans, FlashKernel kernel,
                              int warmup, int reps, std::uint64_t seed) {
  const CpWholeRun whole(scenario, kernel, warmup, reps, seed);
  CpTimes times;
  times.whole = whole.time;
  times.kernel = kernel;
  times.gpu = query_gpu().name;
  for (const CpPlan& plan : plans) {
    const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
    for (CpExchange exchange : all_cp_exchanges) {
      CpExchangeTimes e{plan.strategy, exchange, {}};
      for (int rank = 0; rank < plan.ranks(); ++rank)
        e.ranks.push_back(time_rank(whole, kernel, plan, shards, exchange, rank, warmup, reps));
      times.exchanges.push_back(std::move(e));
    }
  }
  return times;
}

}  // namespace attnlab
