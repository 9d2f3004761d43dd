// `attnlab run`: the four implementations on the GPU over one scenario's
// documents, each checked against the fp64 CPU reference of its own layout,
// timed with CUDA events, printed as a table and written as results rows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/cost_model.hpp"
#include "core/implementation.hpp"
#include "core/input_error.hpp"
#include "core/results_csv.hpp"
#include "core/scenario_file.hpp"
#include "kernels/attention.hpp"
#include "kernels/launch_config.hpp"
#include "kernels/run_info.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/error_metrics.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab::cli {

namespace {

struct RunOptions {
  std::vector<std::string> scenarios{default_scenario_name};
  std::string implementations = "naive,padded,packed,varlen";
  std::string dtype;  // empty: the scenario's
  int reps = 20;
  std::string out;
  bool count = false;
  std::uint64_t seed = 1;
};

DType dtype_flag(const std::string& text) {
  if (const auto dtype = parse_dtype(text)) return *dtype;
  throw InputError("--dtype: expected bf16 or fp16, got \"" + text + "\"");
}

// ---- what the reference checks --------------------------------------------------

// The fp64 reference walks every cell of every row it computes; above this many
// cells (all checked heads together) it checks a seeded sample instead.
constexpr double reference_cell_budget = 4e8;
constexpr int sampled_heads = 2;

struct ReferenceCheck {
  ReferenceOptions options;
  std::string description;  // "all" or "5/64 rows, 2/16 heads"
};

ReferenceCheck choose_reference_check(const Layout& layout, int heads, std::uint64_t seed) {
  const LayoutView view = layout.view();
  std::vector<double> row_cells(layout.num_rows());
  for (int r = 0; r < layout.num_rows(); ++r) row_cells[r] = std::pow(double(row_extent(view, r)), 2);
  const double all_cells = std::accumulate(row_cells.begin(), row_cells.end(), 0.0);
  ReferenceCheck check;
  if (all_cells * heads <= reference_cell_budget) {
    check.description = "all";
    return check;
  }
  std::mt19937_64 rng(seed);
  std::vector<int> heads_order(heads), rows_order(layout.num_rows());
  std::iota(heads_order.begin(), heads_order.end(), 0);
  std::iota(rows_order.begin(), rows_order.end(), 0);
  std::shuffle(heads_order.begin(), heads_order.end(), rng);
  std::shuffle(rows_order.begin(), rows_order.end(), rng);
  // Two heads, or one when the first sampled row alone would take the budget with two.
  const int nheads = row_cells[rows_order.front()] * sampled_heads > reference_cell_budget ? 1 : std::min(heads, sampled_heads);
  check.options.heads.assign(heads_order.begin(), heads_order.begin() + nheads);
  double used = 0;
  for (int r : rows_order) {  // seeded order; every row that still fits, and at least one
    if (!check.options.rows.empty() && used + row_cells[r] * nheads > reference_cell_budget) continue;
    check.options.rows.push_back(r);
    used += row_cells[r] * nheads;
  }
  std::sort(check.options.rows.begin(), check.options.rows.end());
  std::sort(check.options.heads.begin(), check.options.heads.end());
  check.description = std::to_string(check.options.rows.size()) + "/" + std::to_string(layout.num_rows()) + " rows, " +
                      std::to_string(nheads) + "/" + std::to_string(heads) + " heads";
  return check;
}

// ---- one scenario -----------------------------------------------------------------

struct Outcome {
  Implementation implementation;
  std::string refused;  // why it did not run, when it did not
  GpuTiming timing;
  ErrorStats error;
  std::optional<double> bleed;
  std::int64_t unwritten = 0;  // valid (position, head) pairs with a non-finite O or LSE (outputs are poisoned first)
  std::string checked;
  std::optional<KernelCounts> counted;
};

class ScenarioRun {
 public:
  ScenarioRun(const Scenario& s, const RunOptions& options, const RunInfo& info)
      : s_(s), options_(options), info_(info), model_(model_costs(s, flash_tile)), problem_(attention_problem(s)) {
    problem_.validate();
  }

  std::vector<Outcome> run(const std::vector<Implementation>& implementations) {
    // Inputs in canonical order are the varlen buffer: upload once, gather on the device for the others.
    const Layout& varlen = layout_for(Implementation::varlen);
    canonical_ = make_random_inputs(s_.total_tokens(), s_.heads, s_.kv_heads, s_.head_dim, s_.dtype, options_.seed);
    std::vector<Outcome> outcomes;
    try {
      varlen_device_ = std::make_unique<DeviceLayout>(varlen);
      canonical_tensors_ = std::make_unique<AttentionTensors>(varlen.buffer_tokens(), problem_);
    } catch (const GpuMemoryError& e) {  // no implementation can run: each says why, the next scenario goes on
      for (Implementation impl : implementations) outcomes.push_back({impl, std::string("the inputs: ") + e.what()});
      return outcomes;
    }
    upload_qkv(*canonical_tensors_, s_.dtype, canonical_.q, canonical_.k, canonical_.v);
    for (Implementation impl : implementations) outcomes.push_back(run_one(impl));
    return outcomes;
  }

  ResultRow result_row(const Outcome& o) const {
    ResultRow row = timed_result_row(s_, o.implementation, model_[o.implementation], o.timing, info_);
    row.rel_l2_error = o.error.rel_l2;
    row.max_abs_error = o.error.max_abs;
    row.bleed_rel_l2 = o.bleed;
    return row;
  }

  const CostModel& model() const { return model_; }

 private:
  const Layout& layout_for(Implementation impl) {
    const LayoutKind kind = layout_of(impl);
    if (!layouts_.count(kind)) layouts_.emplace(kind, implementation_layout(s_, impl));
    return layouts_.at(kind);
  }

  // The fp64 reference of a layout (computed once, on the checked sample).
  const ReferenceOutput& reference_for(LayoutKind kind, std::string& checked) {
    if (!references_.count(kind)) {
      const Layout& layout = layouts_.at(kind);
      const ReferenceCheck check = choose_reference_check(layout, s_.heads, options_.seed + 100);
      references_.emplace(kind, reference_materialized(layout, canonical_, problem_.softmax_scale(), check.options));
      checks_[kind] = check.description;
    }
    checked = checks_.at(kind);
    return references_.at(kind);
  }

  Outcome run_one(Implementation impl) {
    Outcome o{impl};
    const LayoutKind kind = layout_of(impl);
    const Layout& layout = layout_for(impl);
    const bool is_varlen = kind == LayoutKind::varlen;
    std::unique_ptr<DeviceLayout> own_layout;
    std::unique_ptr<AttentionTensors> own_tensors;
    std::unique_ptr<NaiveAttention> naive;
    try {
      if (!is_varlen) {
        own_layout = std::make_unique<DeviceLayout>(layout);
        own_tensors = std::make_unique<AttentionTensors>(layout.buffer_tokens(), problem_);
      }
      if (impl == Implementation::naive) naive = std::make_unique<NaiveAttention>(*own_layout, problem_);
    } catch (const GpuMemoryError& e) {
      o.refused = e.what();
      return o;
    }
    const DeviceLayout& device_layout = is_varlen ? *varlen_device_ : *own_layout;
    AttentionTensors& tensors = is_varlen ? *canonical_tensors_ : *own_tensors;
    if (!is_varlen) gather_qkv(*canonical_tensors_, device_layout, tensors);
    const std::function<void()> launch = naive ? std::function<void()>([&] { naive->run(tensors); })
                                               : std::function<void()>([&] { run_flash(device_layout, problem_, tensors); });

    // Correct first: poisoned outputs, one run, every valid output written, error vs the reference.
    tensors.o.poison();
    tensors.lse.poison();
    launch();
    const std::vector<float> out = download_o(tensors, s_.dtype);
    const std::vector<float> lse = download_lse(tensors);
    o.unwritten = check_written(layout, problem_, out, lse).unwritten;
    o.error = compare_to_reference(layout, reference_for(kind, o.checked), out, lse);
    if (impl == Implementation::packed) {
      std::string unused;
      o.bleed = compare_across_layouts(layout, out, layouts_.at(LayoutKind::varlen),
                                       reference_for(LayoutKind::varlen, unused))
                    .rel_l2;
    }

    // Then fast: a probe run sets the repetitions so a slow case stays within a few seconds.
    const GpuTiming probe = time_on_gpu(launch, 1, 1);
    const int affordable = static_cast<int>(3e6 / std::max(probe.median_us, 1.0));
    o.timing = time_on_gpu(launch, 2, std::clamp(affordable, std::min(3, options_.reps), options_.reps));

    if (options_.count && !naive) {
      KernelCounts counts;
      run_flash(device_layout, problem_, tensors, &counts);
      o.counted = counts;
    }
    return o;
  }

  const Scenario& s_;
  const RunOptions& options_;
  const RunInfo& info_;
  CostModel model_;
  AttentionProblem problem_;
  std::map<LayoutKind, Layout> layouts_;
  AttentionInputs canonical_;
  std::unique_ptr<DeviceLayout> varlen_device_;
  std::unique_ptr<AttentionTensors> canonical_tensors_;
  std::map<LayoutKind, ReferenceOutput> references_;
  std::map<LayoutKind, std::string> checks_;
};

void print_outcomes(const ScenarioRun& run, const std::vector<Outcome>& outcomes) {
  TextTable table({"implementation", "median us", "min us", "useful TFLOP/s", "computed TFLOP/s", "scores computed",
                   "computed/useful", "rel L2", "max abs", "bleed rel L2", "unwritten", "checked"});
  for (const Outcome& o : outcomes) {
    const ImplementationCost& cost = run.model()[o.implementation];
    const std::string name = implementation_name(o.implementation);
    if (!o.refused.empty()) {
      table.add_row({name, "refused"});
      continue;
    }
    const ResultRow row = run.result_row(o);
    table.add_row({name, printf_string("%.1f", o.timing.median_us), printf_string("%.1f", o.timing.min_us),
                   printf_string("%.1f", *row.useful_tflops), printf_string("%.1f", *row.computed_tflops),
                   si_count(double(cost.scores_computed())),
                   times(double(cost.scores_computed()) / double(cost.scores_useful())),
                   printf_string("%.2e", o.error.rel_l2), printf_string("%.2e", o.error.max_abs),
                   o.bleed ? printf_string("%.3f", *o.bleed) : "", std::to_string(o.unwritten), o.checked});
  }
  std::fputs(table.render().c_str(), stdout);
  for (const Outcome& o : outcomes) {
    if (!o.refused.empty()) std::printf("%s refused: %s\n", implementation_name(o.implementation), o.refused.c_str());
  }
}

// Kernel counts against the model: printed, and a mismatch fails the command.
bool report_counts(const ScenarioRun& run, const std::vector<Outcome>& outcomes) {
  bool all_equal = true;
  for (const Outcome& o : outcomes) {
    if (!o.counted) continue;
    const ImplementationCost& cost = run.model()[o.implementation];
    const bool equal = o.counted->cells == cost.scores && o.counted->visited_tiles == cost.tiles_visited;
    all_equal = all_equal && equal;
    std::printf("%s counted by the kernel: %lld tiles, %lld scores (%lld useful): %s the model\n",
                implementation_name(o.implementation), static_cast<long long>(o.counted->visited_tiles),
                static_cast<long long>(o.counted->cells.computed()), static_cast<long long>(o.counted->cells[CellKind::useful]),
                equal ? "equals" : "DIFFERS FROM");
  }
  return all_equal;
}

void run_scenarios(const RunOptions& options) {
  const std::vector<Implementation> implementations = parse_implementation_list(options.implementations, "--impl");
  std::optional<DType> dtype;
  if (!options.dtype.empty()) dtype = dtype_flag(options.dtype);
  if (options.reps < 1) throw InputError("--reps: expected a positive number of timed runs, got " + std::to_string(options.reps));
  if (!options.out.empty()) check_results_path(options.out, "--out");
  // Every scenario is read and checked before the GPU is touched and the first one runs: a bad name or a
  // hostile file fails in a second with exit 2, not after minutes.
  std::vector<Scenario> scenarios;
  for (const std::string& name : options.scenarios) {
    Scenario& s = scenarios.emplace_back(load_scenario(name));
    if (dtype) s.dtype = *dtype;
    try {
      attention_problem(s).validate();
    } catch (const InputError& e) {
      throw InputError(s.source.empty() ? "scenario " + s.name + ": " + e.what() : s.source.string() + ": " + e.what());
    }
  }
  const GpuInfo gpu = query_gpu();  // no GPU: NoGpuError, one line, exit 3, before anything is printed or written
  const RunInfo info = describe_run(gpu);
  std::printf("gpu          %s, %d SMs, driver %s, CUDA runtime %s, %.1f GiB free\n", gpu.name.c_str(), gpu.sm_count,
              gpu.driver.c_str(), info.cuda_version.c_str(), double(gpu.free_bytes) / (1 << 30));

  std::vector<ResultRow> rows;
  bool counts_equal = true;
  std::int64_t unwritten = 0;
  for (const Scenario& s : scenarios) {
    std::printf("\nscenario     %s: %zu documents, %lld tokens; %d heads (%d KV), head dim %d, %s, %s\n", s.name.c_str(),
                s.doc_lengths.size(), static_cast<long long>(s.total_tokens()), s.heads, s.kv_heads, s.head_dim,
                dtype_name(s.dtype), s.causal ? "causal" : "not causal");
    std::fflush(stdout);
    ScenarioRun run(s, options, info);
    const std::vector<Outcome> outcomes = run.run(implementations);
    print_outcomes(run, outcomes);
    for (const std::string& line : take_launch_records()) std::printf("launch       %s\n", line.c_str());
    counts_equal = report_counts(run, outcomes) && counts_equal;
    for (const Outcome& o : outcomes) {
      if (o.refused.empty()) rows.push_back(run.result_row(o));
      unwritten += o.unwritten;
    }
    std::fflush(stdout);
  }
  // A run that failed its checks leaves no results file behind: its rows are not results.
  const std::string not_written = options.out.empty() ? "" : "; " + options.out + " not written";
  if (!counts_equal) throw std::runtime_error("the kernels' counted tiles or scores differ from the cost model" + not_written);
  if (unwritten)
    throw std::runtime_error(std::to_string(unwritten) + " valid outputs were not written or not finite" + not_written);
  if (!options.out.empty()) {
    write_results_csv(options.out, rows);
    std::printf("\nwrote %zu rows to %s\n", rows.size(), options.out.c_str());
  }
}

}  // namespace

// `attnlab run [SCENARIO...] [--impl ...] [--dtype bf16|fp16] [--reps N] [--out FILE.csv] [--count]`
void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Run naive, padded, packed and varlen on the GPU, check each against the fp64 reference, time them");
  run->add_option("scenario", options->scenarios, "Scenario names or .toml paths (default: " +
                                                      std::string(default_scenario_name) + ")");
  run->add_option("--impl", options->implementations, "Comma-separated implementations to run")
      ->capture_default_str();
  run->add_option("--dtype", options->dtype, "bf16 or fp16 (default: the scenario's)");
  run->add_option("--reps", options->reps, "Timed runs per implementation (fewer when one run takes long)")
      ->capture_default_str();
  run->add_option("--out", options->out, "Write the results rows to this CSV file");
  run->add_option("--seed", options->seed, "Seed of the random Q, K, V")->capture_default_str();
  run->add_flag("--count", options->count, "Also run the tiled kernel once more, counting its tiles and scores, and compare them with the model");
  run->callback([options] { run_scenarios(*options); });
}

}  // namespace attnlab::cli
