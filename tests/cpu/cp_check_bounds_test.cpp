// `attnlab cp --check` at the documents edge of its bounds: as many documents as the values
// bound (tokens x heads x head_dim <= 2^23) lets through, each split over every one of the most
// ranks the model takes. What the check costs is stated in cli/README.md ("attnlab cp").
#include <gtest/gtest.h>

#include <string>

#include "core/cost/context_parallel.hpp"
#include "tests/cpu/cli_run.hpp"
#include "tests/cpu/cp_check_table.hpp"

namespace attnlab::cli_run {
namespace {

// 1024 documents of 1024 tokens (one head of 8: T x H x D = 2^23, the limit) over 1024 ranks
// under a window of one key: a million pieces per split strategy. A check whose work grew with
// ranks^2 x pieces would not finish inside the limit; one that follows the useful scores takes a
// few seconds of the minute. The counts are the hand-worked ones: a document of N tokens over N
// ranks puts token r of every document on rank r (contiguous, and zigzag's 2N chunks of at most
// one token), whose queries attend keys r - 1 and r: each rank but the first needs the block of
// the rank before it, and whole documents (one a rank) need none.
TEST(CpCheckBounds, TheMostDocumentsOverTheMostRanksStayInsideACpuLimit) {
  constexpr long long n = max_cp_ranks, documents = 1024, length = 1024, tokens = documents * length;
  const std::string scenario = uniform_scenario("edge", documents, length, 1);
  for (CpStrategy strategy : all_cp_strategies) {  // one a command, each under its own limit
    const std::string name = cp_strategy_name(strategy);
    const CliRun r =
        attnlab("cp " + scenario + " --ranks " + std::to_string(n) + " --check --strategy " + name, "ulimit -t 60;");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const auto rows = check_rows(r.out);
    ASSERT_EQ(rows.size(), 2u) << r.out;
    const bool split = strategy != CpStrategy::documents;
    for (const auto& row : rows) {
      EXPECT_EQ(row[0], name) << r.out;
      EXPECT_EQ(row[8], "yes") << r.out;
      // Blocks used and skipped of the N (N - 1) the ranks receive, K/V tokens received and needed.
      EXPECT_EQ(row[4], std::to_string(split ? n - 1 : 0)) << r.out;
      EXPECT_EQ(row[5], std::to_string(split ? (n - 1) * (n - 1) : n * (n - 1))) << r.out;
      EXPECT_EQ(row[6], std::to_string(split ? (n - 1) * tokens : 0)) << r.out;
      EXPECT_EQ(row[7], std::to_string(split ? (n - 1) * documents : 0)) << r.out;
    }
  }
  // It is the edge: one document more is above the values' limit, refused before anything runs.
  const CliRun over =
      attnlab("cp " + uniform_scenario("past-edge", documents + 1, length, 1) + " --ranks 1024 --check");
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_TRUE(over.out.empty()) << over.out;
  EXPECT_NE(over.err.find("--check: tokens (1049600) x heads (1) x head_dim (8) = 8396800 is above the check's limit "
                          "of 8388608"),
            std::string::npos)
      << over.err;
}

}  // namespace
}  // namespace attnlab::cli_run
