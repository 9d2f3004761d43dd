#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/cpu/cli_run.hpp"

namespace attnlab::cli_run {
namespace {

// Awkward lengths (1 and 7 shorter than 2N), two heads of 16.
std::string small_scenario() {
  const std::filesystem::path file = scratch_dir() / "cp-check.toml";
  std::ofstream(file) << "why = \"CP check test.\"\nheads = 2\nhead_dim = 16\ndtype = \"bf16\"\ncausal = true\n"
                         "row_len = 512\n[documents]\nsource = \"list\"\nlengths = [1, 7, 64, 129, 300]\n";
  std::string quoted = "'";
  quoted += file.string();
  return quoted += "'";
}

// The check table's rows: strategy, exchange, rel L2, LSE error, blocks used, skipped, K/V in, needed, = model.
std::vector<std::vector<std::string>> check_rows(const std::string& out) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split(out, '\n')) {
    std::vector<std::string> cells;
    for (const std::string& cell : split(line, ' '))
      if (!cell.empty()) cells.push_back(cell);
    if (cells.size() == 9 && (cells[1] == "ring" || cells[1] == "all-gather")) rows.push_back(cells);
  }
  return rows;
}

TEST(CpCheckCli, EveryStrategyAndExchangeMergesToTheWholeRun) {
  const CliRun r = attnlab("cp " + small_scenario() + " --ranks 3 --check --check-heads 2 --seed 11");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("seed 11, 2 of 2 heads"), std::string::npos) << r.out;
  const auto rows = check_rows(r.out);
  ASSERT_EQ(rows.size(), 6u) << r.out;
  for (const auto& row : rows) {
    EXPECT_LE(std::stod(row[2]), 1e-12) << r.out;
    EXPECT_LE(std::stod(row[3]), 1e-12) << r.out;
    EXPECT_EQ(row[8], "yes") << r.out;
  }
  // Whole documents over 3 ranks: nothing travels, so each rank skips the other two's empty shards.
  EXPECT_EQ(rows[4][0], "documents");
  EXPECT_EQ(rows[4][4], "0");
  EXPECT_EQ(rows[4][5], "6");
  EXPECT_EQ(rows[4][6], "0");
}

TEST(CpCheckCli, OneStrategyChecksItsTwoExchanges) {
  const CliRun r = attnlab("cp " + small_scenario() + " --ranks 8 --check --strategy zigzag");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = check_rows(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  EXPECT_EQ(rows[0][0], "zigzag");
  EXPECT_EQ(rows[0][1], "ring");
  EXPECT_EQ(rows[1][1], "all-gather");
  EXPECT_EQ(rows[0][4], rows[1][4]);  // the same blocks used either way
}

TEST(CpCheckCli, LargeChecksAndBadFlagsExitTwoWithOneLine) {
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"cp one-doc-16384 --ranks 4 --check", "one-doc-16384.toml: --check: useful scores (134225920)"},
           {"cp uniform-64x512 --ranks 4 --check --check-heads 2", "limit of 2147483648"},
           {"cp uniform-64x512 --ranks 4 --check --check-heads 17", "--check-heads"},
           {"cp uniform-64x512 --ranks 4 --check --check-heads 0", "--check-heads"},
           {"cp uniform-64x512 --ranks 4 --check --format csv", "--check"},
       }) {
    const CliRun r = attnlab(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace attnlab::cli_run
