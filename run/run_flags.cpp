#include "run/run_flags.hpp"

#include <algorithm>
#include <limits>

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/io/number_flags.hpp"
#include "core/scenario/scenario_file.hpp"
#include "run/run_info.hpp"

namespace attnlab::cli {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ",") + item;
  return text;
}

std::vector<DType> chosen_dtypes(const RunFlags& flags) {
  std::vector<DType> dtypes;
  for (const std::string& name : flags.dtypes) {
    const auto dtype = parse_dtype(name);
    if (!dtype) throw InputError("--dtypes: expected bf16 or fp16, got \"" + name + "\"");
    dtypes.push_back(*dtype);
  }
  return dtypes;
}

// Numbers on the command line are read by core/io/number_flags.hpp: CLI11 would read 010 as octal
// and 0x40 as hex, and turn -1 into the largest seed. It converts only what this lets through.
CLI::Validator decimal(std::uint64_t max) {
  return CLI::Validator([max](const std::string& text) { return integer_flag_problem(text, 0, max); }, "DECIMAL");
}
const CLI::Validator decimal_int = decimal(std::numeric_limits<int>::max());
const CLI::Validator decimal_seed = decimal(std::numeric_limits<std::uint64_t>::max());

}  // namespace

void add_run_flags(CLI::App& app, RunFlags& flags, const std::string& reps_help) {
  app.add_option("scenario", flags.scenarios, "Scenario names (see `attnlab list`) or .toml paths");
  // Split by parse_implementation_list, not CLI11, which would drop an empty name (naive,,packed).
  app.add_option("--implementations", flags.implementations, "Implementations to run: naive, padded, packed, varlen")
      ->capture_default_str();
  app.add_option("--dtypes", flags.dtypes, "bf16, fp16 or both (default: each scenario's own)")->delimiter(',');
  app.add_option("--head-dims", flags.head_dims, "Head dims, e.g. 64,128 (default: each scenario's own)")
      ->delimiter(',')
      ->check(decimal_int);
  app.add_option("--kernel", flags.kernel,
                 "Flash kernel for padded, packed and varlen: " + flash_kernel_names() +
                     " (default: the fastest this GPU runs; naive is always cuBLAS)");
  app.add_option("--pass", flags.pass, "fwd, bwd (the backward, after an untimed forward) or both")
      ->capture_default_str();
  app.add_option("--reps", flags.reps, reps_help)->check(decimal_int)->capture_default_str();
  app.add_option("--warmup", flags.warmup, "Untimed passes before the timed ones")
      ->check(decimal_int)
      ->capture_default_str();
  app.add_option("--out", flags.out, "Write the results rows to this CSV file (schema: results/README.md)");
  app.add_option("--seed", flags.seed, "Seed of the random Q, K, V, 0 to 2^64 - 1")
      ->check(decimal_seed)
      ->capture_default_str();
  // The spellings scripts used before the two programs agreed; not in --help.
  app.add_option("--scenarios", flags.scenarios)->delimiter(',')->group("");
  app.add_option("--impl", flags.implementations)->group("");
  app.add_option("--dtype", flags.dtypes)->delimiter(',')->group("");
  app.add_option("--head_dims", flags.head_dims)->delimiter(',')->check(decimal_int)->group("");
  app.add_option("--results_csv", flags.out)->group("");
}

std::vector<Implementation> chosen_implementations(const RunFlags& flags) {
  return parse_implementation_list(joined(flags.implementations), "--implementations");
}

std::vector<Pass> chosen_passes(const RunFlags& flags) {
  if (flags.pass == "fwd") return {Pass::fwd};
  if (flags.pass == "bwd") return {Pass::bwd};
  if (flags.pass == "both") return {Pass::fwd, Pass::bwd};
  throw InputError("--pass: expected fwd, bwd or both, got \"" + flags.pass + "\"");
}

void check_run_flags(const RunFlags& flags, int min_reps) {
  chosen_implementations(flags);
  chosen_passes(flags);
  chosen_dtypes(flags);
  for (const int head_dim : flags.head_dims)
    if (head_dim < 1 || head_dim > max_head_dim)
      throw InputError("--head-dims: expected head dims from 1 to " + std::to_string(max_head_dim) + ", got " +
                       std::to_string(head_dim));
  for (const std::string& name : flags.scenarios) load_scenario(name);  // a bad name is bad input, GPU or not
  if (!flags.kernel.empty()) parse_flash_kernel(flags.kernel);
  if (flags.reps < min_reps)
    throw InputError(std::string("--reps: expected ") + (min_reps > 0 ? "a positive number" : "0 (unset) or more") +
                     " of timed passes, got " + std::to_string(flags.reps));
  if (flags.warmup < 0)
    throw InputError("--warmup: expected a number of passes, 0 or more, got " + std::to_string(flags.warmup));
  if (!flags.out.empty()) check_results_path(flags.out, "--out");
}

FlashKernel chosen_kernel(const RunFlags& flags, int compute_capability) {
  const std::vector<Pass> passes = chosen_passes(flags);
  return choose_flash_kernel(flags.kernel, compute_capability, "--kernel",
                             std::find(passes.begin(), passes.end(), Pass::bwd) != passes.end());
}

std::vector<std::shared_ptr<const ScenarioPlan>> plan_scenarios(const RunFlags& flags, FlashKernel kernel) {
  std::vector<Scenario> bases;
  if (flags.scenarios.empty()) bases = list_scenarios();
  for (const std::string& name : flags.scenarios) bases.push_back(load_scenario(name));
  const std::vector<DType> dtypes = chosen_dtypes(flags);
  std::vector<std::shared_ptr<const ScenarioPlan>> plans;
  for (const Scenario& base : bases) {
    std::shared_ptr<const ScenarioLayouts> layouts;  // built by the first variant, shared by the rest
    for (DType dtype : dtypes.empty() ? std::vector<DType>{base.dtype} : dtypes)
      for (int head_dim : flags.head_dims.empty() ? std::vector<int>{base.head_dim} : flags.head_dims) {
        Scenario s = base;
        s.dtype = dtype;
        s.head_dim = head_dim;
        auto plan = std::make_shared<const ScenarioPlan>(s, kernel, layouts);
        layouts = plan->layouts;
        plans.push_back(std::move(plan));
      }
  }
  return plans;
}

}  // namespace attnlab::cli
