// libFuzzer target: any bytes as a GEMM file (gemms/*.csv, analysis/measured_gemms.hpp). Either
// rows within the file's limits that price nanochat-d24's step at finite times, or InputError of
// one printable line.
#include <cmath>
#include <cstdlib>

#include "analysis/measured_gemms.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  static const Scenario scenario = load_scenario("nanochat-d24");
  static const TrainingStep step = model_training_step(scenario, *scenario.model);
  const auto path = fuzz::write_input(data, size, "gemms.csv");
  std::vector<GemmRow> rows;
  try {
    rows = read_gemms_csv(path);
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();
    return 0;
  }
  if (static_cast<std::int64_t>(rows.size()) > max_results_rows) std::abort();
  for (const GemmRow& r : rows) {
    if (!(r.median_us >= min_measured_us && r.median_us <= max_measured_us) || r.m < 1 || r.n < 1 || r.k < 1 ||
        r.per_step < 1 || r.per_step > max_model_layers)
      std::abort();
    for (const std::string* text : {&r.scenario, &r.gpu, &r.gemm, &r.commit, &r.date})
      if (!is_text_cell(*text)) std::abort();
  }
  // The rows price the step, where they cover it, at finite, positive times.
  if (const auto priced = gemms_for_step(scenario, step, {GemmsFile{path, rows}}))
    if (!(std::isfinite(priced->fwd_us) && priced->fwd_us > 0 && std::isfinite(priced->bwd_us) && priced->bwd_us > 0))
      std::abort();
  return 0;
}
