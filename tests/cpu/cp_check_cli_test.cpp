#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cpu/cli_run.hpp"
#include "tests/cpu/cp_check_table.hpp"

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

// The check's bounds bound what it costs (cli/README.md, "attnlab cp"): 4 documents of 1024
// tokens over 1024 ranks (each rank copied a piece's whole document at every ring step, and
// compared every piece with every other: minutes), and one document of 2^20 tokens under a window
// of one key, at the tokens x heads x head_dim limit (the whole reference scored 2^40 cells: over
// an hour), each well inside a CPU limit of a minute.
TEST(CpCheckCli, ChecksInsideTheBoundsCostWhatTheBoundsSay) {
  for (const std::string& scenario :
       {uniform_scenario("four", 4, 1024), uniform_scenario("one-long-window-1", 1, 1 << 20, 1)}) {
    const CliRun r = attnlab("cp " + scenario + " --ranks 1024 --check", "ulimit -t 60;");
    ASSERT_EQ(r.exit_code, 0) << scenario << ": " << r.err;
    const auto rows = check_rows(r.out);
    ASSERT_EQ(rows.size(), 6u) << r.out;
    for (const auto& row : rows) EXPECT_EQ(row[8], "yes") << r.out;
  }
  // One token past the values' limit is refused before anything runs.
  const std::filesystem::path plus_one = scratch_dir() / "one-long-plus-one.toml";
  std::ofstream(plus_one) << "why = \"One token past.\"\nheads = 1\nhead_dim = 8\ndtype = \"bf16\"\ncausal = true\n"
                             "window = 1\nrow_len = 1048576\n[documents]\nsource = \"list\"\nlengths = [1048576, 1]\n";
  const CliRun over = attnlab("cp '" + plus_one.string() + "' --ranks 2 --check");
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_NE(over.err.find("--check: tokens (1048577) x heads (1) x head_dim (8) = 8388616 is above the check's limit "
                          "of 8388608"),
            std::string::npos)
      << over.err;
}

// --format json prints every piece: bounded before the model is made (2^24 one-token documents over
// 1024 ranks, a 190-byte file, wrote 722 MB holding 2.8 GB). At the limit it prints; one past, it refuses.
TEST(CpCheckCli, JsonIsBoundedByItsPieces) {
  const CliRun huge = attnlab("cp " + uniform_scenario("huge", 1 << 24, 1) + " --ranks 1024 --format json");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_TRUE(huge.out.empty());
  EXPECT_NE(huge.err.find("--format json: up to 50331648 pieces of documents over 1024 ranks, above the limit of "
                          "1048576"),
            std::string::npos)
      << huge.err;
  const CliRun edge =
      attnlab("cp " + uniform_scenario("edge", 1 << 20, 1) + " --ranks 4 --strategy documents --format json");
  ASSERT_EQ(edge.exit_code, 0) << edge.err;
  EXPECT_NE(edge.out.find("[1048575,0,1]"), std::string::npos);
  const CliRun past =
      attnlab("cp " + uniform_scenario("past", (1 << 20) + 1, 1) + " --ranks 4 --strategy documents --format json");
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.err.find("up to 1048577 pieces"), std::string::npos) << past.err;
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
