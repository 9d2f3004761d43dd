// `attnlab results` given an empty path: refused as bad input in one line that names it,
// whatever other paths come with it, and nothing printed or written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/results/results_csv.hpp"
#include "tests/cpu/cli_run.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::cli_run {
namespace {

namespace fs = std::filesystem;

TEST(ResultsCli, AnEmptyPathIsOneLineAndExitTwo) {
  const fs::path good = scratch_dir() / "good.csv";
  write_results_csv(good, {our_row("varlen", 300)});
  const fs::path out = scratch_dir() / "primary.csv";
  fs::remove(out);
  for (const std::string& args :
       std::vector<std::string>{"results ''", "results '' '" + good.string() + "'",
                                "results '" + good.string() + "' '' --out '" + out.string() + "'"}) {
    const CliRun r = attnlab(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
    EXPECT_EQ(r.err, "attnlab: \"\": an empty path; expected a results CSV or a folder of them\n") << args;
  }
  EXPECT_FALSE(fs::exists(out));
  // The same file alone is read.
  const CliRun r = attnlab("results '" + good.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("uniform-64x512"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attnlab::cli_run
