// `attnlab run`: the implementations on the GPU over each scenario's documents,
// each checked against the fp64 CPU reference of its own layout, timed with CUDA
// events, printed as a table and written as results rows; with --pass bwd or
// both, the backward too (its own table and rows, pass = bwd). Running one
// implementation is AttentionRun's job (run/attention_run.hpp); this file
// loops over scenarios and implementations and prints.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario_file.hpp"
#include "kernels/common/launch_config.hpp"
#include "run/attention_run.hpp"
#include "run/run_flags.hpp"
#include "run/run_info.hpp"

namespace attnlab::cli {

namespace {

struct RunOptions {
  RunFlags flags;
  bool count = false;
};

struct Outcome {
  Implementation implementation;
  Pass pass = Pass::fwd;
  std::string refused;  // why it did not run, when it did not
  RunCheck check;
  GpuTiming timing;
  std::optional<CountComparison> counted;
};

// Correct first (poisoned outputs, one pass, the reference), then fast, then counted.
Outcome run_one(const ScenarioPlan& plan, RunInputs& inputs, Implementation implementation, Pass pass,
                const RunOptions& options) {
  Outcome o{.implementation = implementation, .pass = pass};
  std::unique_ptr<AttentionRun> run;
  try {
    run = std::make_unique<AttentionRun>(plan, implementation, pass);
    run->take_inputs(inputs);
  } catch (const GpuMemoryError& e) {
    o.refused = e.what();
    return o;
  }
  o.check = run->check(inputs);
  o.timing = run->time(options.flags.warmup, options.flags.reps);
  if (options.count) o.counted = run->count();
  return o;
}

std::vector<Outcome> run_scenario(const ScenarioPlan& plan, const std::vector<Implementation>& implementations,
                                  const std::vector<Pass>& passes, const RunOptions& options) {
  std::vector<Outcome> outcomes;
  std::unique_ptr<RunInputs> inputs;
  try {
    inputs = std::make_unique<RunInputs>(plan.scenario.total_tokens(), plan.problem, options.flags.seed);
  } catch (const GpuMemoryError& e) {  // no implementation can run: each says why, the next scenario goes on
    for (Pass pass : passes)
      for (Implementation impl : implementations)
        outcomes.push_back({.implementation = impl, .pass = pass, .refused = std::string("the inputs: ") + e.what()});
    return outcomes;
  }
  for (Pass pass : passes)
    for (Implementation impl : implementations) outcomes.push_back(run_one(plan, *inputs, impl, pass, options));
  return outcomes;
}

ResultRow result_row(const ScenarioPlan& plan, const Outcome& o, const RunInfo& info) {
  ResultRow row = timed_result_row(plan, o.implementation, o.pass, o.timing, info);
  row.rel_l2_error = o.check.error.rel_l2;
  row.max_abs_error = o.check.error.max_abs;
  row.bleed_rel_l2 = o.check.bleed_rel_l2;
  return row;
}

// One pass's table, when the pass ran: the forward's with the model's scores and the
// bleed, the backward's with its worst gradient (dQ, dK or dV) and which.
void print_pass(const ScenarioPlan& plan, const std::vector<Outcome>& outcomes, const RunInfo& info, Pass pass) {
  const bool fwd = pass == Pass::fwd;
  std::vector<std::string> header{fwd ? "implementation" : "backward", "median µs", "min µs", "useful TFLOP/s",
                                  "computed TFLOP/s"};
  const std::vector<std::string> own =
      fwd ? std::vector<std::string>{"scores computed", "computed/useful", "rel L2", "max abs", "bleed rel L2"}
          : std::vector<std::string>{"worst rel L2", "of", "max abs"};
  header.insert(header.end(), own.begin(), own.end());
  header.insert(header.end(), {"unwritten", "checked"});
  TextTable table(header);
  bool ran = false;
  for (const Outcome& o : outcomes) {
    if (o.pass != pass) continue;
    ran = true;
    const ImplementationCost& cost = plan.model[o.implementation];
    const std::string name = implementation_name(o.implementation);
    if (!o.refused.empty()) {
      table.add_row({name, "refused"});
      continue;
    }
    const ResultRow row = result_row(plan, o, info);
    std::vector<std::string> cells{name, printf_string("%.1f", o.timing.median_us),
                                   printf_string("%.1f", o.timing.min_us), printf_string("%.1f", *row.useful_tflops),
                                   printf_string("%.1f", *row.computed_tflops)};
    if (fwd)
      cells.insert(cells.end(),
                   {format_count(double(cost.scores_computed())),
                    format_ratio(double(cost.scores_computed()) / double(cost.scores_useful())),
                    printf_string("%.2e", o.check.error.rel_l2), printf_string("%.2e", o.check.error.max_abs),
                    o.check.bleed_rel_l2 ? printf_string("%.3f", *o.check.bleed_rel_l2) : ""});
    else
      cells.insert(cells.end(), {printf_string("%.2e", o.check.error.rel_l2), o.check.gradients->worst_name(),
                                 printf_string("%.2e", o.check.error.max_abs)});
    cells.insert(cells.end(), {std::to_string(o.check.written.unwritten), o.check.coverage});
    table.add_row(std::move(cells));
  }
  if (ran) std::fputs(table.render().c_str(), stdout);
}

void print_outcomes(const ScenarioPlan& plan, const std::vector<Outcome>& outcomes, const RunInfo& info) {
  print_pass(plan, outcomes, info, Pass::fwd);
  print_pass(plan, outcomes, info, Pass::bwd);
  for (const Outcome& o : outcomes) {
    if (!o.refused.empty())
      std::printf("%s %s refused: %s\n", implementation_name(o.implementation), pass_name(o.pass), o.refused.c_str());
  }
}

// Kernel counts against the model: printed, and a mismatch fails the command.
bool report_counts(const std::vector<Outcome>& outcomes) {
  bool all_equal = true;
  for (const Outcome& o : outcomes) {
    if (!o.counted) continue;
    const bool equal = o.counted->equal();
    all_equal = all_equal && equal;
    std::printf(
        "%s %s counted by the kernel: %lld tiles, %lld scores (%lld useful, %lld left finite by its mask): %s "
        "the model\n",
        implementation_name(o.implementation), pass_name(o.pass),
        static_cast<long long>(o.counted->counted.visited_tiles),
        static_cast<long long>(o.counted->counted.cells.computed()),
        static_cast<long long>(o.counted->counted.cells[CellKind::useful]),
        static_cast<long long>(o.counted->counted.finite_scores), equal ? "equals" : "DIFFERS FROM");
  }
  return all_equal;
}

void run_scenarios(const RunOptions& options) {
  check_run_flags(options.flags, 1);
  const std::vector<Implementation> implementations = chosen_implementations(options.flags);
  const std::vector<Pass> passes = chosen_passes(options.flags);
  // Every scenario is read and checked before the GPU is touched: a hostile file fails with exit 2 at once.
  for (const std::string& name : options.flags.scenarios) load_scenario(name);
  const GpuInfo gpu = query_gpu();  // no GPU: NoGpuError, one line, exit 3, before anything is printed or written
  const FlashKernel kernel = chosen_kernel(options.flags, gpu.compute_capability);
  // Every scenario is read and checked before the first one runs: a bad name fails in a second, not after minutes.
  const auto plans = plan_scenarios(options.flags, kernel);
  const RunInfo info = describe_run(gpu);
  std::printf("gpu          %s, %d SMs, driver %s, CUDA runtime %s, %.1f GiB free\n", gpu.name.c_str(), gpu.sm_count,
              gpu.driver.c_str(), info.cuda_version.c_str(), double(gpu.free_bytes) / (1 << 30));
  const FlashKernelInfo& flash = flash_kernel_info(kernel);
  std::printf("kernel       %s, %dx%d tiles (naive: %s)\n", flash.name, flash.tile.rows, flash.tile.cols,
              naive_kernel_name);

  std::vector<ResultRow> rows;
  bool counts_equal = true;
  std::int64_t unwritten = 0;
  for (const auto& plan : plans) {
    const Scenario& s = plan->scenario;
    std::printf("\nscenario     %s: %zu documents, %lld tokens; %d heads (%d KV), head dim %d, %s, %s\n",
                s.name.c_str(), s.doc_lengths.size(), static_cast<long long>(s.total_tokens()), s.heads, s.kv_heads,
                s.head_dim, dtype_name(s.dtype), s.causal ? "causal" : "not causal");
    std::fflush(stdout);
    const std::vector<Outcome> outcomes = run_scenario(*plan, implementations, passes, options);
    print_outcomes(*plan, outcomes, info);
    for (const std::string& line : take_launch_records()) std::printf("launch       %s\n", line.c_str());
    counts_equal = report_counts(outcomes) && counts_equal;
    for (const Outcome& o : outcomes) {
      if (o.refused.empty()) rows.push_back(result_row(*plan, o, info));
      unwritten += o.check.written.unwritten;
    }
    std::fflush(stdout);
  }
  // A run that failed its checks leaves no results file behind: its rows are not results.
  const std::string& out = options.flags.out;
  const std::string not_written = out.empty() ? "" : "; " + out + " not written";
  if (!counts_equal)
    throw std::runtime_error("the kernels' counted tiles or scores differ from the cost model" + not_written);
  if (unwritten)
    throw std::runtime_error(std::to_string(unwritten) + " valid outputs were not written or not finite" + not_written);
  if (!out.empty()) {
    write_results_csv(out, rows);
    std::printf("\nwrote %zu rows to %s\n", rows.size(), out.c_str());
  }
}

}  // namespace

// `attnlab run [SCENARIO...] [--implementations ...] [--dtypes ...] [--head-dims ...] [--kernel K] [--pass P]
//  [--reps N] [--warmup N] [--out FILE.csv] [--seed N] [--count]`
void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  options->flags.scenarios = {default_scenario_name};
  options->flags.reps = 20;
  options->flags.warmup = 2;
  CLI::App* run = app.add_subcommand(
      "run", "Run naive, padded, packed and varlen on the GPU, check each against the fp64 reference, time them");
  add_run_flags(*run, options->flags, "Timed passes per implementation (fewer when one pass takes long)");
  run->add_flag("--count", options->count,
                "Also run the tiled kernel once more, counting its tiles and scores, and compare them with the model");
  run->callback([options] { run_scenarios(*options); });
}

}  // namespace attnlab::cli
