#include "run/cp_timing.hpp"

#include <algorithm>
#include <memory>

#include "core/cost/cp_piece_layouts.hpp"
#include "kernels/context_parallel.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/cp_forward.hpp"
#include "run/scenario_plan.hpp"

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

CpPartial cp_partial_of(const CpOutputSums& sums, const std::vector<CpPiece>& queries) {
  CpPartial out = empty_cp_partial(queries, sums.problem().heads, sums.problem().head_dim);
  const std::vector<float> o = sums.download_o(), lse = sums.download_lse();
  out.o.assign(o.begin(), o.end());
  out.lse.assign(lse.begin(), lse.end());
  return out;
}

namespace {

// The whole forward's O (in the dtype, as floats) and LSE, [token][head][...] in canonical order.
struct WholeRun {
  std::vector<float> o, lse;
};

// The whole run's O and LSE at a rank's queries, as that rank's partial over every key.
// `source`: the canonical token of each of the pieces' queries (CpPieceLayouts::query_source).
CpPartial whole_at(const WholeRun& whole, const std::vector<CpPiece>& pieces, const std::vector<std::int64_t>& source,
                   const AttentionProblem& p) {
  CpPartial out = empty_cp_partial(pieces, p.heads, p.head_dim);
  const std::size_t width = std::size_t(p.heads) * p.head_dim;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const std::size_t token = std::size_t(source[i]);
    std::copy_n(whole.o.begin() + token * width, width, out.o.begin() + i * width);
    std::copy_n(whole.lse.begin() + token * p.heads, p.heads, out.lse.begin() + i * p.heads);
  }
  return out;
}

// What every rank's run shares: the scenario's layout and inputs, the kernel, the whole run.
struct RankRuns {
  const Layout& varlen;
  const AttentionTensors& canonical;
  const AttentionProblem& p;
  FlashKernel kernel;
  const WholeRun& whole;
  int warmup, reps;
};

// One rank: its steps' pieces and buffers on the device, then its compute timed and checked.
CpRankTime time_rank(const RankRuns& runs, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards,
                     CpExchange exchange, int rank) {
  const Layout& varlen = runs.varlen;
  const AttentionProblem& p = runs.p;
  const FlashKernel kernel = runs.kernel;
  const TileShape tile = kernel_tile(kernel);
  const std::vector<std::vector<int>> schedule = cp_schedule(exchange, rank, plan.ranks());
  std::vector<std::unique_ptr<CpPieceLayouts>> pieces;  // each DeviceCpPieces holds its own's address
  std::vector<std::unique_ptr<DeviceCpPieces>> on_device;
  std::vector<std::unique_ptr<CpStepTensors>> tensors;
  CpRankTime out;
  for (const std::vector<int>& holders : schedule) {
    auto step = std::make_unique<CpPieceLayouts>(
        cp_piece_layouts(varlen, plan.pieces[rank], cp_step_keys(plan, shards, rank, holders)));
    if (step->rounds.empty()) continue;  // no key its queries attend: the block is skipped
    ++out.steps;
    out.launches += int(step->rounds.size());
    for (const Layout& round : step->rounds) out.scores_computed += count_layout(round, tile).computed() * p.heads;
    on_device.push_back(std::make_unique<DeviceCpPieces>(*step, tile));
    tensors.push_back(std::make_unique<CpStepTensors>(*on_device.back(), runs.canonical, p));
    pieces.push_back(std::move(step));
  }
  CpOutputSums sums(tokens_of(plan.pieces[rank]), p);
  const auto run = [&] {
    sums.clear();
    for (std::size_t s = 0; s < on_device.size(); ++s)
      sums.add(kernel, *on_device[s], tensors[s]->q.data(), tensors[s]->k.data(), tensors[s]->v.data());
  };
  out.compute = time_on_gpu(run, runs.warmup, runs.reps);
  const std::vector<CpPiece>& queries = plan.pieces[rank];
  const CpForwardError error =
      compare_cp_partials(cp_partial_of(sums, queries),
                          whole_at(runs.whole, queries, cp_piece_layouts(varlen, queries, {}).query_source, p));
  out.rel_l2 = error.rel_l2;
  out.lse_max_abs = error.lse_max_abs;
  return out;
}

}  // namespace

CpTimes time_context_parallel(const Scenario& scenario, const std::vector<CpPlan>& plans, FlashKernel kernel,
                              int warmup, int reps, std::uint64_t seed) {
  const AttentionProblem p = attention_problem(scenario);
  const Layout varlen = scenario.varlen_layout();
  AttentionTensors canonical(varlen.buffer_tokens(), p);
  {
    const AttentionInputs in =
        make_random_inputs(varlen.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, seed);
    upload_qkv(canonical, p.dtype, in.q, in.k, in.v);
  }
  CpTimes times;
  const DeviceLayout whole_layout(varlen, kernel_tile(kernel));
  times.whole = time_on_gpu([&] { run_flash(kernel, whole_layout, p, canonical); }, warmup, reps);
  const WholeRun whole{download_o(canonical, p.dtype), download_lse(canonical)};
  const RankRuns runs{varlen, canonical, p, kernel, whole, warmup, reps};
  for (const CpPlan& plan : plans) {
    const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
    for (CpExchange exchange : all_cp_exchanges) {
      CpExchangeTimes e{plan.strategy, exchange, {}};
      for (int rank = 0; rank < plan.ranks(); ++rank) e.ranks.push_back(time_rank(runs, plan, shards, exchange, rank));
      times.exchanges.push_back(std::move(e));
    }
  }
  return times;
}

}  // namespace attnlab
