// attnlab-bench: Google Benchmark over (scenario, implementation, dtype, head dim).
// Each benchmark times one forward pass with CUDA events (manual time) after a
// warm-up, cycling through input sets larger than L2, and reports the useful and
// computed TFLOP/s, the scores and the model's HBM bytes as counters. Besides the
// usual --benchmark_* flags it takes `attnlab run`'s (run/run_flags.hpp) and can
// write the results CSV.
#include <benchmark/benchmark.h>
#include <cuda_profiler_api.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_case.hpp"
#include "bench/pass_timer.hpp"
#include "core/io/input_error.hpp"
#include "core/io/program_exit.hpp"
#include "core/results/results_csv.hpp"
#include "kernels/common/cuda_check.hpp"
#include "run/run_flags.hpp"
#include "run/run_info.hpp"

namespace attnlab::bench {

namespace {

struct Options {
  cli::RunFlags flags;
  bool profile_one_pass = false;
};

// Takes our flags (run/run_flags.hpp, as `attnlab run` takes them) out of argv,
// leaving Google Benchmark's --benchmark_* in `rest`, argv[0] first. Throws
// CLI::ParseError on a malformed flag of ours.
Options take_options(int argc, char** argv, std::vector<std::string>& rest) {
  Options o;
  o.flags.warmup = 3;
  CLI::App app{
      "attnlab-bench: Google Benchmark over (scenario, implementation, dtype, head dim).\n"
      "Benchmark names are IMPLEMENTATION/SCENARIO/DTYPE/dHEAD_DIM, e.g. varlen/uniform-64x512/bf16/d128;\n"
      "with no scenario named, every shipped one runs. Google Benchmark's own flags (--benchmark_*) follow."};
  app.set_help_flag();  // --help reaches Google Benchmark too, which prints its flags and exits
  app.allow_extras();
  cli::add_run_flags(app, o.flags,
                     "Timed passes per case and repetition (default: as many as Google Benchmark's "
                     "--benchmark_min_time asks for)");
  app.add_flag("--profile-one-pass", o.profile_one_pass,
               "Run one untimed forward pass of each case between cudaProfilerStart and cudaProfilerStop, "
               "for `ncu --profile-from-start off` (bench/ncu_bytes.py)");
  app.add_flag("--profile_one_pass", o.profile_one_pass)->group("");
  app.parse(argc, argv);  // a CLI::ParseError is reported by run(), as attnlab run reports it
  rest = {argv[0]};
  for (const std::string& arg : app.remaining()) {
    if (arg == "--help" || arg == "-h") std::fputs(app.help().c_str(), stdout);
    rest.push_back(arg);
  }
  return o;
}

// What a case measured across every call Google Benchmark made of it (repetitions included).
struct CaseRecord {
  CaseKey key;
  std::vector<double> samples_us;
  double warmup_pass_us = 0;  // sizes the batches of timed passes
  bool profiled = false;
};

// Google Benchmark calls a case's function once per repetition and while it sizes the
// iteration count; the GPU state survives between calls, and is released for the next case.
struct CurrentCase {
  const CaseRecord* record = nullptr;
  std::unique_ptr<AttentionRun> run;
};
CurrentCase current_case;

AttentionRun& prepare(CaseRecord& record, const Options& options) {
  if (current_case.run && current_case.record == &record) return *current_case.run;
  current_case = {};
  auto run = prepare_case(record.key, options.flags.seed);
  // The row reports the model's scores: a kernel that computes others fails its case.
  if (const auto c = run->count(); c && !c->equal())
    throw std::runtime_error(
        "the kernel counted " + std::to_string(c->counted.visited_tiles) + " tiles and " +
        std::to_string(c->counted.cells.computed()) + " scores computed (" + std::to_string(c->counted.finite_scores) +
        " left finite by its mask), the model " + std::to_string(c->model.visited_tiles) + " and " +
        std::to_string(c->model.cells.computed()) + " (" + std::to_string(c->model.finite_scores) + ")");
  record.warmup_pass_us = time_on_gpu([&, i = 0]() mutable { run->launch(i++); }, options.flags.warmup, 1).median_us;
  current_case = {&record, std::move(run)};
  return *current_case.run;
}

// The profiler sees exactly one pass per case, whatever Google Benchmark runs around it.
void profile_one_pass(AttentionRun& c) {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStart());
  c.launch(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStop());
}

void run_case(benchmark::State& state, CaseRecord& record, const Options& options) {
  AttentionRun* c = nullptr;
  try {
    c = &prepare(record, options);
    if (options.profile_one_pass && !std::exchange(record.profiled, true)) profile_one_pass(*c);
  } catch (const std::exception& e) {  // too little memory, counts off the model: this case only
    current_case = {};
    state.SkipWithError(e.what());
    return;
  }
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
  const ImplementationCost& cost = record.key.cost();
  const ResultRow row = timed_result_row(*record.key.plan, record.key.implementation, record.key.pass,
                                         timing_of(samples), RunInfo{});  // the pass's model: FLOPs and bytes
  state.counters["useful_TFLOP/s"] = *row.useful_tflops;
  state.counters["computed_TFLOP/s"] = *row.computed_tflops;
  state.counters["scores_computed"] = double(cost.scores_computed());
  state.counters["scores_useful"] = double(cost.scores_useful());
  state.counters["model_bytes"] = double(*row.hbm_bytes_model);
  state.counters["model_GB/s"] = double(*row.hbm_bytes_model) / seconds / 1e9;
  state.counters["input_sets"] = c->input_sets();
}

ResultRow result_row(const CaseRecord& r, const RunInfo& run) {
  const ScenarioPlan& plan = *r.key.plan;
  return timed_result_row(plan, r.key.implementation, r.key.pass, timing_of(r.samples_us), run);
}

// Cases in scenario order, so the inputs of one scenario are made while it runs.
std::vector<std::unique_ptr<CaseRecord>> register_cases(const std::vector<std::shared_ptr<const ScenarioPlan>>& plans,
                                                        const Options& o) {
  std::vector<std::unique_ptr<CaseRecord>> records;
  for (const auto& plan : plans)
    for (Pass pass : cli::chosen_passes(o.flags))
      for (Implementation impl : cli::chosen_implementations(o.flags)) {
        auto& record = records.emplace_back(std::make_unique<CaseRecord>(CaseRecord{{plan, impl, pass}}));
        auto* benchmark =
            benchmark::RegisterBenchmark(record->key.name().c_str(),
                                         [r = record.get(), &o](benchmark::State& state) { run_case(state, *r, o); })
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
        if (o.flags.reps > 0) benchmark->Iterations(o.flags.reps);
      }
  return records;
}

// Google Benchmark accepts an unknown --benchmark_format (or _out_format) and exits 0; refused here, before any work.
void check_benchmark_flags(const std::vector<std::string>& args) {
  for (const std::string& arg : args)
    for (const std::string flag : {"--benchmark_format=", "--benchmark_out_format="})
      if (arg.rfind(flag, 0) == 0) {
        const std::string value = arg.substr(flag.size());
        if (value != "console" && value != "json" && value != "csv")
          throw InputError(flag.substr(0, flag.size() - 1) + ": expected console, json or csv, got \"" + value + "\"");
      }
}

int run(int argc, char** argv) {
  std::vector<std::string> rest;
  Options options;
  try {
    options = take_options(argc, argv, rest);
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code() == 0 ? 0 : refuse_arguments("attnlab-bench", e.what());
  }
  cli::check_run_flags(options.flags, 0);
  check_benchmark_flags(rest);
  std::vector<char*> benchmark_args;
  for (std::string& arg : rest) benchmark_args.push_back(arg.data());
  int benchmark_argc = static_cast<int>(benchmark_args.size());
  benchmark::Initialize(&benchmark_argc, benchmark_args.data());
  if (benchmark::ReportUnrecognizedArguments(benchmark_argc, benchmark_args.data())) return exit_bad_input;
  const GpuInfo gpu = query_gpu();
  const FlashKernel kernel = cli::chosen_kernel(options.flags, gpu.compute_capability);
  const RunInfo info = describe_run(gpu);
  const auto records = register_cases(cli::plan_scenarios(options.flags, kernel), options);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  current_case = {};
  if (!options.flags.out.empty()) {
    std::vector<ResultRow> rows;
    for (const auto& r : records)
      if (!r->samples_us.empty()) rows.push_back(result_row(*r, info));
    write_results_csv(options.flags.out, rows);
    std::fprintf(stderr, "attnlab-bench: wrote %zu rows to %s\n", rows.size(), options.flags.out.c_str());
  }
  return 0;
}

}  // namespace

}  // namespace attnlab::bench

int main(int argc, char** argv) {
  return attnlab::run_program("attnlab-bench", [&] { return attnlab::bench::run(argc, argv); });
}
