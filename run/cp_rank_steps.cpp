#include "run/cp_rank_steps.hpp"

#include <algorithm>

#include "kernels/kernel_choice.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/cp_forward.hpp"
#include "run/scenario_plan.hpp"

namespace attnlab {

namespace {

AttentionTensors uploaded_inputs(const Layout& varlen, const AttentionProblem& p, std::uint64_t seed) {
  AttentionTensors canonical(varlen.buffer_tokens(), p);
  const AttentionInputs in = make_random_inputs(varlen.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, seed);
  upload_qkv(canonical, p.dtype, in.q, in.k, in.v);
  return canonical;
}

}  // namespace

CpWholeRun::CpWholeRun(const Scenario& scenario, FlashKernel kernel, int warmup, int reps, std::uint64_t seed)
    : varlen(scenario.varlen_layout()),
      problem(attention_problem(scenario)),
      canonical(uploaded_inputs(varlen, problem, seed)) {
  const DeviceLayout layout(varlen, kernel_tile(kernel));
  time = time_on_gpu([&] { run_flash(kernel, layout, problem, canonical); }, warmup, reps);
  o = download_o(canonical, problem.dtype);
  lse = download_lse(canonical);
}

CpPartial CpWholeRun::at(const std::vector<CpPiece>& queries) const {
  const AttentionProblem& p = problem;
  CpPartial out = empty_cp_partial(queries, p.heads, p.head_dim);
  const std::size_t width = std::size_t(p.heads) * p.head_dim;
  const std::vector<std::int64_t> source = cp_piece_layouts(varlen, queries, {}).query_source;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const std::size_t token = std::size_t(source[i]);
    std::copy_n(o.begin() + token * width, width, out.o.begin() + i * width);
    std::copy_n(lse.begin() + token * p.heads, p.heads, out.lse.begin() + i * p.heads);
  }
  return out;
}

void CpWholeRun::check(const CpOutputSums& sums, const std::vector<CpPiece>& queries, CpRankTime& out) const {
  const CpForwardError error = compare_cp_partials(cp_partial_of(sums, queries), at(queries));
  out.rel_l2 = error.rel_l2;
  out.lse_max_abs = error.lse_max_abs;
}

CpRankTime CpRankSteps::counted() const {
  CpRankTime out;
  out.steps = steps;
  out.launches = launches;
  out.scores_computed = scores_computed;
  return out;
}

CpRankSteps::CpRankSteps(const Layout& varlen, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards,
                         CpExchange exchange, int rank, FlashKernel kernel, int heads)
    : schedule(cp_schedule(exchange, rank, plan.ranks())) {
  const TileShape tile = kernel_tile(kernel);
  for (const std::vector<int>& holders : schedule) {
    layouts.push_back(std::make_unique<CpPieceLayouts>(
        cp_piece_layouts(varlen, plan.pieces[rank], cp_step_keys(plan, shards, rank, holders))));
    const CpPieceLayouts& step = *layouts.back();
    if (step.rounds.empty()) {  // no key its queries attend: the block is skipped
      pieces.emplace_back();
      continue;
    }
    ++steps;
    launches += int(step.rounds.size());
    for (const Layout& round : step.rounds) scores_computed += count_layout(round, tile).computed() * heads;
    pieces.push_back(std::make_unique<DeviceCpPieces>(step, tile));
  }
}

}  // namespace attnlab
