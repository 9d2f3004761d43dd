#include "run/cp_timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/cost/cp_piece_layouts.hpp"
#include "kernels/context_parallel.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/attention_inputs.hpp"
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

namespace {

// The whole forward's O (in the dtype, as floats) and LSE, [token][head][...] in canonical order.
struct WholeRun {
  std::vector<float> o, lse;
};

// A rank's sums against the whole run over its queries: relative L2 of O, largest |LSE difference|
// (a NaN or a query with keys on one side only counts as infinite).
void compare_to_whole(const CpOutputSums& sums, const std::vector<std::int64_t>& query_source,
                      const AttentionProblem& p, const WholeRun& whole, CpRankTime& out) {
  const std::vector<float> o = sums.download_o(), lse = sums.download_lse();
  const std::size_t width = std::size_t(p.heads) * p.head_dim;
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < query_source.size(); ++i) {
    const float* expected = whole.o.data() + std::size_t(query_source[i]) * width;
    for (std::size_t j = 0; j < width; ++j) {
      const double d = double(o[i * width + j]) - double(expected[j]);
      diff += d * d;
      norm += double(expected[j]) * double(expected[j]);
    }
    for (int h = 0; h < p.heads; ++h) {
      const double got = lse[i * p.heads + h], want = whole.lse[std::size_t(query_source[i]) * p.heads + h];
      const double error = std::isfinite(got) && std::isfinite(want) ? std::abs(got - want)
                           : got == want                             ? 0
                                                                     : std::numeric_limits<double>::infinity();
      out.lse_max_abs = std::max(out.lse_max_abs, error);
    }
  }
  out.rel_l2 = std::isfinite(diff) ? std::sqrt(diff / std::max(norm, std::numeric_limits<double>::min()))
                                   : std::numeric_limits<double>::infinity();
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
  compare_to_whole(sums, cp_piece_layouts(varlen, plan.pieces[rank], {}).query_source, p, runs.whole, out);
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
