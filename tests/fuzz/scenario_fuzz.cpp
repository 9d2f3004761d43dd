// libFuzzer target: any bytes as a scenario file. load_scenario must return a checked
// scenario or throw InputError of one printable line; a scenario it accepts must model
// to non-negative counts, and its [model] table, if any, to a training step whose attention
// shares are shares (small ones only: the fuzzer should spend its time on parsing).
#include <cmath>
#include <cstdlib>

#include "core/cost/backward_cost.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cost/training_step.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::write_input(data, size, "fuzz.toml");
  try {
    const Scenario s = load_scenario(path.string());
    if (s.doc_lengths.empty()) std::abort();
    const std::int64_t docs = static_cast<std::int64_t>(s.doc_lengths.size());
    if (docs * s.padded_length() > 65536 || s.packed_rows_bound() * s.row_len > 65536) return 0;
    const CostModel forward = model_costs(s);
    for (const ImplementationCost& c : forward.costs)
      if (c.scores_computed() < 0 || c.flops_fwd < 0 || c.hbm.total() < 0 || c.extra_memory_bytes < 0) std::abort();
    for (const BackwardCost& b : model_backward_costs(s, forward))
      if (b.flops < 0 || b.hbm.total() < 0 || b.extra_memory_bytes < 0) std::abort();
    if (s.model)
      for (const StepCost& c : model_training_step(s, *s.model, TileShape{}).costs)
        for (const double share : {c.attention_share_full_squares(), c.attention_share_computed()})
          if (!(std::isfinite(share) && share >= 0 && share <= 1)) std::abort();
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();  // one printable line
  }
  return 0;
}
