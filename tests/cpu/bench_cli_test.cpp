// attnlab-bench's own refusals: bad flags, names and Google Benchmark formats exit 2 before
// any GPU is looked for. attnlab-bench is built where CUDA and Google Benchmark are.
#include <gtest/gtest.h>

#include <string>

#include "tests/cpu/cli_run.hpp"

#ifdef ATTNLAB_BENCH_EXE
namespace {

using attnlab::cli_run::CliRun;
using attnlab::cli_run::run_program;

TEST(BenchCli, BadFlagsExitTwoBeforeAnyGpuWork) {
  const std::pair<const char*, const char*> cases[] = {
      {"no-such-scenario", "no-such-scenario"},
      {"--benchmark_format=xml", "--benchmark_format: expected console, json or csv, got \"xml\""},
      {"--benchmark_out_format=yaml", "--benchmark_out_format: expected console, json or csv"},
      {"--reps 010", "--reps: expected an integer from 0 to 2147483647, got \"010\""},
      {"--seed=-1", "--seed: expected an integer from 0 to 18446744073709551615, got \"-1\""},
      {"--frobnicate=1 --kernel nope", "--kernel"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = run_program(ATTNLAB_BENCH_EXE, args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
#endif
