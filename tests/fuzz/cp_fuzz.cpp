// libFuzzer target: any bytes as a scenario file, its context-parallel model and the fp64 check
// of its LSE merge (attnlab cp --check). A scenario load_scenario accepts, over 1 to 8 ranks
// (from the input's bytes), under every strategy: the ranks hold every token once, their useful
// scores add up to the whole run's and their bytes are non-negative; and, where it is small,
// every rank's merged forward, by ring and by all-gather, is the whole reference's within 1e-12
// with the model's K/V. Anything refused is an InputError of one printable line.
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/cost/context_parallel.hpp"
#include "core/io/input_error.hpp"
#include "core/layout/layouts.hpp"
#include "core/scenario/scenario_file.hpp"
#include "reference/cp_forward.hpp"
#include "tests/fuzz/fuzz_file.hpp"

namespace {

using namespace attnlab;

void check_model(const Scenario& s, const CpCost& c, std::int64_t useful) {
  std::int64_t tokens = 0, scores_useful = 0;
  for (const CpRankCost& r : c.ranks) {
    tokens += r.tokens;
    scores_useful += r.scores_useful();
    if (r.scores_computed() < r.scores_useful() || r.kv_bytes_ring < 0 || r.kv_bytes_all_gather < 0 ||
        r.kv_bytes_needed < 0 || r.kv_bytes_needed > r.kv_bytes_ring)
      std::abort();
  }
  if (tokens != s.total_tokens() || scores_useful != useful) std::abort();
  if (!(std::isfinite(c.useful_imbalance) && c.useful_imbalance >= 0 && std::isfinite(c.computed_imbalance)))
    std::abort();
}

void check_merge(const Scenario& s, const CpCost& c, const AttentionInputs& in, const ReferenceOutput& whole) {
  const Layout varlen = s.varlen_layout();
  for (CpExchange exchange : all_cp_exchanges) {
    const CpForwardRun run = run_cp_forward(varlen, in, default_scale(s.head_dim), c.plan, exchange, whole);
    if (!(run.worst_rel_l2 <= 1e-12 && run.worst_lse_abs <= 1e-12)) std::abort();
    if (run.keys_received * c.kv_bytes_per_token != c.total(&CpRankCost::kv_bytes_ring) ||
        run.keys_needed * c.kv_bytes_per_token != c.total(&CpRankCost::kv_bytes_needed))
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::write_input(data, size, "cp.toml");
  Scenario s;
  try {
    s = load_scenario(path.string());
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();
    return 0;
  }
  // Small scenarios only: the fuzzer's time goes to many inputs, not to one large model.
  if (s.total_tokens() > 4096 || s.doc_lengths.size() > 512) return 0;
  const int ranks = 1 + int(std::accumulate(data, data + size, 0u) % 8);
  const std::int64_t useful = count_layout(s.varlen_layout(), default_flash_tile)[CellKind::useful] * s.heads;
  const bool merge = s.total_tokens() <= 128 && s.head_dim <= 32;
  AttentionInputs in;
  ReferenceOutput whole;
  if (merge) {
    in = make_random_inputs(s.total_tokens(), 1, 1, s.head_dim, s.dtype, 1);
    whole = reference_materialized(s.varlen_layout(), in, default_scale(s.head_dim));
  }
  for (CpStrategy strategy : all_cp_strategies) {
    const CpCost c = model_context_parallel(s, ranks, strategy);
    check_model(s, c, useful);
    if (merge) check_merge(s, c, in, whole);
  }
  return 0;
}
