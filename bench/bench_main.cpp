// attnlab-bench: Google Benchmark over (scenario, implementation, dtype, head dim).
// Each benchmark times one forward pass with CUDA events (manual time) after a
// warm-up, cycling through input sets larger than L2, and reports the useful and
// computed TFLOP/s, the scores and the model's HBM bytes as counters. Besides the
// usual --benchmark_* flags it takes its own (below) and can write the results CSV.
#include <benchmark/benchmark.h>
#include <cuda_profiler_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/bench_case.hpp"
#include "bench/pass_timer.hpp"
#include "core/input_error.hpp"
#include "core/program_exit.hpp"
#include "core/results_csv.hpp"
#include "core/scenario_file.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/run_info.hpp"

namespace attnlab::bench {

namespace {

constexpr const char* usage = R"(attnlab-bench flags (besides Google Benchmark's --benchmark_*):
  --scenarios=a,b,...        scenario names or .toml paths (default: every shipped scenario)
  --implementations=a,b,...  naive, padded, packed, varlen (default: all four)
  --dtypes=bf16,fp16         (default: each scenario's own)
  --head_dims=64,128         (default: each scenario's own)
  --warmup=N                 forward passes before timing a case (default 3)
  --results_csv=FILE         write one results row per case run (schema: results/README.md)
  --profile_one_pass         run one untimed forward pass of each case between cudaProfilerStart
                             and cudaProfilerStop, for `ncu --profile-from-start off` (bench/ncu_bytes.py)
Benchmark names are IMPLEMENTATION/SCENARIO/DTYPE/dHEAD_DIM, e.g. varlen/uniform-64x512/bf16/d128.
)";

struct Options {
  std::vector<std::string> scenarios;
  std::vector<Implementation> implementations{all_implementations.begin(), all_implementations.end()};
  std::vector<DType> dtypes;
  std::vector<int> head_dims;
  int warmup = 3;
  std::string results_csv;
  bool profile_one_pass = false;
};

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> items;
  std::stringstream in{std::string(text)};
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

int parse_int(std::string_view flag, const std::string& text) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw InputError(std::string(flag) + ": expected an integer, got \"" + text + "\"");
}

// Takes our --flag=value arguments out of argv, leaving Google Benchmark's.
Options take_options(int& argc, char** argv) {
  Options o;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto eq = arg.find('=');
    const std::string_view flag = arg.substr(0, eq);
    const std::string value = eq == std::string_view::npos ? "" : std::string(arg.substr(eq + 1));
    if (flag == "--scenarios") {
      o.scenarios = split_commas(value);
    } else if (flag == "--implementations") {
      o.implementations = parse_implementation_list(value, "--implementations");
    } else if (flag == "--dtypes") {
      for (const auto& name : split_commas(value)) {
        const auto dtype = parse_dtype(name);
        if (!dtype) throw InputError("--dtypes: expected bf16 or fp16, got \"" + name + "\"");
        o.dtypes.push_back(*dtype);
      }
    } else if (flag == "--head_dims") {
      for (const auto& d : split_commas(value)) o.head_dims.push_back(parse_int(flag, d));
    } else if (flag == "--warmup") {
      o.warmup = parse_int(flag, value);
      if (o.warmup < 0) throw InputError("--warmup: expected a number of passes, 0 or more, got " + value);
    } else if (flag == "--results_csv") {
      if (value.empty()) throw InputError("--results_csv: expected a file name");
      check_results_path(value, "--results_csv");
      o.results_csv = value;
    } else if (arg == "--profile_one_pass") {
      o.profile_one_pass = true;
    } else {
      if (flag == "--help" || flag == "-h") std::fputs(usage, stdout);
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return o;
}

// What a case measured across every call Google Benchmark made of it (repetitions included).
struct CaseRecord {
  CaseKey key;
  std::vector<double> samples_us;
  std::optional<ImplementationCost> cost;
  double warmup_pass_us = 0;  // sizes the batches of timed passes
  bool profiled = false;
};

// Google Benchmark calls a case's function once per repetition and while it sizes the
// iteration count; the GPU state survives between calls, and is released for the next case.
std::unique_ptr<PreparedCase> current_case;

PreparedCase& prepare(CaseRecord& record, int warmup) {
  if (current_case && current_case->key().name() == record.key.name()) return *current_case;
  current_case.reset();
  current_case = std::make_unique<PreparedCase>(record.key);
  // The row reports the model's scores: a kernel that computes others fails its case.
  if (const auto counted = current_case->count_kernel()) {
    const ImplementationCost& cost = current_case->cost();
    if (counted->cells != cost.scores || counted->visited_tiles != cost.tiles_visited)
      throw std::runtime_error("the kernel counted " + std::to_string(counted->visited_tiles) + " tiles and " +
                               std::to_string(counted->cells.computed()) + " scores computed, the model " +
                               std::to_string(cost.tiles_visited) + " and " + std::to_string(cost.scores_computed()));
  }
  record.warmup_pass_us = time_on_gpu([&, i = 0]() mutable { current_case->launch(i++); }, warmup, 1).median_us;
  return *current_case;
}

// The profiler sees exactly one forward pass per case, whatever Google Benchmark runs around it.
void profile_one_pass(PreparedCase& c) {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStart());
  c.launch(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStop());
}

void run_case(benchmark::State& state, CaseRecord& record, const Options& options) {
  PreparedCase* c = nullptr;
  try {
    c = &prepare(record, options.warmup);
    if (options.profile_one_pass && !std::exchange(record.profiled, true)) profile_one_pass(*c);
  } catch (const std::exception& e) {  // too little memory, counts off the model: this case only
    current_case.reset();
    state.SkipWithError(e.what());
    return;
  }
  record.cost = c->cost();
  // Each iteration reports one pass of a batch timed back to back (bench/pass_timer.hpp).
  const int batch = passes_per_batch(record.warmup_pass_us);
  std::vector<double> samples, queued;
  int set = 0;
  for (auto _ : state) {
    if (queued.empty()) {
      queued = time_passes(*c, set, batch);
      set += batch;
    }
    state.SetIterationTime(queued.back() * 1e-6);
    samples.push_back(queued.back());
    queued.pop_back();
  }
  record.samples_us.insert(record.samples_us.end(), samples.begin(), samples.end());
  const double seconds = timing_of(samples).median_us * 1e-6;
  const ImplementationCost& cost = c->cost();
  state.counters["useful_TFLOP/s"] = double(cost.flops_useful_fwd) / seconds / 1e12;
  state.counters["computed_TFLOP/s"] = double(cost.flops_fwd) / seconds / 1e12;
  state.counters["scores_computed"] = double(cost.scores_computed());
  state.counters["scores_useful"] = double(cost.scores_useful());
  state.counters["model_bytes"] = double(cost.hbm.total());
  state.counters["model_GB/s"] = double(cost.hbm.total()) / seconds / 1e9;
  state.counters["input_sets"] = c->input_sets();
}

ResultRow result_row(const CaseRecord& r, const RunInfo& run) {
  return timed_result_row(r.key.scenario, r.key.implementation, *r.cost, timing_of(r.samples_us), run);
}

std::vector<Scenario> chosen_scenarios(const Options& o) {
  if (o.scenarios.empty()) return list_scenarios();
  std::vector<Scenario> out;
  for (const auto& name : o.scenarios) out.push_back(load_scenario(name));
  return out;
}

// Cases in scenario order, so the inputs of one scenario are made while it runs.
std::vector<std::unique_ptr<CaseRecord>> register_cases(const Options& o) {
  std::vector<std::unique_ptr<CaseRecord>> records;
  for (const Scenario& base : chosen_scenarios(o)) {
    const std::vector<DType> dtypes = o.dtypes.empty() ? std::vector<DType>{base.dtype} : o.dtypes;
    const std::vector<int> dims = o.head_dims.empty() ? std::vector<int>{base.head_dim} : o.head_dims;
    for (DType dtype : dtypes)
      for (int dim : dims) {
        Scenario s = base;
        s.dtype = dtype;
        s.head_dim = dim;
        try {  // a shape the kernels lack is bad input, not a case skipped in the middle of the run
          attention_problem(s).validate();
        } catch (const InputError& e) {
          throw InputError("scenario " + s.name + ": " + e.what());
        }
        for (Implementation impl : o.implementations) {
          auto& record = records.emplace_back(std::make_unique<CaseRecord>(CaseRecord{{s, impl}}));
          benchmark::RegisterBenchmark(record->key.name().c_str(),
                                       [r = record.get(), &o](benchmark::State& state) { run_case(state, *r, o); })
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
        }
      }
  }
  return records;
}

int run(int argc, char** argv) {
  const Options options = take_options(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  const RunInfo info = describe_run(query_gpu());
  const auto records = register_cases(options);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  current_case.reset();
  if (!options.results_csv.empty()) {
    std::vector<ResultRow> rows;
    for (const auto& r : records)
      if (!r->samples_us.empty()) rows.push_back(result_row(*r, info));
    write_results_csv(options.results_csv, rows);
    std::fprintf(stderr, "attnlab-bench: wrote %zu rows to %s\n", rows.size(), options.results_csv.c_str());
  }
  return 0;
}

}  // namespace

}  // namespace attnlab::bench

int main(int argc, char** argv) {
  return attnlab::run_program("attnlab-bench", [&] { return attnlab::bench::run(argc, argv); });
}
