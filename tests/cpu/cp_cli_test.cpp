#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/results/results_csv.hpp"
#include "tests/cpu/cli_run.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::cli_run {
namespace {

// `attnlab cp --format csv` as rows of cells, a cell by (strategy, rank, column).
struct CpCsv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name;
    return at - header.begin();
  }
  std::string cell(const std::string& strategy, int rank, const std::string& name) const {
    for (const auto& row : rows)
      if (row.at(column("strategy")) == strategy && row.at(column("rank")) == std::to_string(rank))
        return row.at(column(name));
    ADD_FAILURE() << "no row " << strategy << " " << rank;
    return "";
  }
};

CpCsv parse(const std::string& text) {
  CpCsv csv;
  const auto lines = split(text, '\n');
  csv.header = split(lines.at(0), ',');
  for (std::size_t i = 1; i < lines.size(); ++i) csv.rows.push_back(split(lines[i], ','));
  return csv;
}

// One document of 16384 over 4 ranks: contiguous leaves the last rank
// ((2N - 1) L + N) / (N (L + 1)) of the mean, zigzag balances it, whole documents move nothing.
TEST(CpCli, CsvHasEachStrategyAndRank) {
  const CliRun r = attnlab("cp one-doc-16384 --ranks 4 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CpCsv csv = parse(r.out);
  ASSERT_EQ(csv.rows.size(), 12u) << r.out;
  const double n = 4, l = 16384;
  EXPECT_NEAR(std::stod(csv.cell("contiguous", 3, "useful_imbalance")), ((2 * n - 1) * l + n) / (n * (l + 1)), 1e-6);
  EXPECT_EQ(csv.cell("zigzag", 0, "useful_imbalance"), "1.000000");
  // 16 KV heads x head dim 128 x 2 bytes, K and V: 8 KiB a token; a ring brings 3 x 4096 tokens.
  EXPECT_EQ(csv.cell("zigzag", 2, "kv_bytes_ring"), std::to_string(3LL * 4096 * 8192));
  EXPECT_EQ(csv.cell("contiguous", 0, "kv_bytes_needed"), "0");
  EXPECT_EQ(csv.cell("documents", 0, "tokens"), "16384");
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(csv.cell("documents", rank, "kv_bytes_ring"), "0");
    EXPECT_EQ(csv.cell("documents", rank, "kv_bytes_all_gather"), "0");
    EXPECT_EQ(csv.cell("documents", rank, "tile"), "64x64");
  }
  // The ranks' useful scores add up to the single-GPU model's.
  const CliRun model = attnlab("model one-doc-16384 --format csv");
  ASSERT_EQ(model.exit_code, 0) << model.err;
  const auto model_rows = split(model.out, '\n');
  const auto model_header = split(model_rows.at(0), ',');
  const auto useful_column =
      std::find(model_header.begin(), model_header.end(), "scores_useful") - model_header.begin();
  const auto varlen = std::find_if(model_rows.begin(), model_rows.end(),
                                   [](const std::string& row) { return row.starts_with("one-doc-16384,varlen,"); });
  ASSERT_NE(varlen, model_rows.end()) << model.out;
  for (const char* strategy : {"contiguous", "zigzag", "documents"}) {
    long long useful = 0;
    for (int rank = 0; rank < 4; ++rank) useful += std::stoll(csv.cell(strategy, rank, "scores_useful"));
    EXPECT_EQ(std::to_string(useful), split(*varlen, ',').at(useful_column)) << strategy;
  }
}

TEST(CpCli, TableShowsEachStrategysRanksAndImbalance) {
  const CliRun r = attnlab("cp one-doc-16384 --ranks 2 --kernel wgmma-sm90");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("flash tile 128x128 (wgmma-sm90)"), std::string::npos) << r.out;
  for (const char* line :
       {"contiguous: each document cut into 2 pieces", "zigzag: each document cut into 4 chunks",
        "documents: whole documents", "imbalance (max / mean) 1.50x of useful scores",
        "imbalance (max / mean) 1.00x of useful scores", "imbalance (max / mean) 2.00x of useful scores",
        "K/V received by all ranks: ring 0 B, all-gather 0 B, needed 0 B"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
}

TEST(CpCli, JsonHoldsEachRanksPieces) {
  const CliRun r = attnlab("cp one-doc-16384 --ranks 2 --strategy zigzag --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(split(r.out, '\n').size(), 1u) << "one JSON object on one line";
  // 4 chunks of 4096: rank 0 holds chunks 0 and 3, rank 1 the middle two as one piece.
  for (const char* key :
       {"\"scenario\":\"one-doc-16384\"", "\"ranks\":2", "\"tile\":[64,64]", "\"kv_bytes_per_token\":8192",
        "\"strategy\":\"zigzag\"", "\"pieces\":[[0,0,4096],[0,12288,16384]]", "\"pieces\":[[0,4096,12288]]"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  EXPECT_EQ(r.out.find("\"strategy\":\"contiguous\""), std::string::npos);
}

TEST(CpCli, BadFlagsExitTwoWithOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cp", "--ranks is required"},
      {"cp --ranks 0", "--ranks: expected an integer from 1 to 1024, got \"0\""},
      {"cp --ranks 010", "--ranks: expected an integer from 1 to 1024, got \"010\""},
      {"cp --ranks 0x10", "got \"0x10\""},
      {"cp --ranks 2 --check --seed -1", "--seed: expected an integer from 0 to 18446744073709551615, got \"-1\""},
      {"cp --ranks 2 --check --seed=-1", "got \"-1\""},
      {"cp --ranks 2 --check --seed 0x10", "got \"0x10\""},
      {"cp --ranks 2 --check --seed 010", "got \"010\""},
      {"cp --ranks 2 --check --seed 18446744073709551616", "got \"18446744073709551616\""},
      {"cp --ranks 1025", "got \"1025\""},
      {"cp --ranks 2x", "got \"2x\""},
      {"cp --ranks 2 --strategy ring", "--strategy: expected contiguous, zigzag, documents or all, got \"ring\""},
      {"cp --ranks 2 --format yaml", "--format: expected table, csv or json, got \"yaml\""},
      {"cp --ranks 2 --kernel wgmma", "--kernel: expected one of"},
      {"cp no-such-scenario --ranks 2", "no-such-scenario.toml"},
      {"cp --ranks 2 --run --format csv", "--run: prints a table; --format csv is the model's alone"},
      {"cp --ranks 2 --run --check", "--run and --check: one at a time"},
      {"cp --ranks 2 --run --reps 0", "--reps: expected an integer from 1 to 10000, got \"0\""},
      {"cp --ranks 2 --run --warmup 010", "--warmup: expected an integer from 0 to 10000, got \"010\""},
      {"cp --ranks 2 --run --kernel wgmma", "--kernel: expected one of"},
      {"cp --ranks 2 --run --nccl --kernel wgmma", "--kernel: expected one of"},
      {"cp --ranks 2 --run --kernel wgmma-sm90/rung3",
       "--kernel wgmma-sm90/rung3: a rung of the forward ladder stores its output; --run folds each round into sums"},
      {"cp --ranks 2 --run --nccl --kernel wgmma-sm90/rung1", "--kernel wgmma-sm90/rung1: a rung of the forward"},
      {"cp --ranks 2 --nccl", "--nccl: runs the ranks; give --run with it"},
      {"cp --ranks 2 --csv cp.csv", "--csv: writes --run's rows; give --run with it"},
      {"cp --ranks 2 --run --csv /", "--csv"},
      {"cp --ranks 2 --run --sm-margin 8", "--sm-margin: leaves SMs to NCCL's transfers; give --nccl"},
      {"cp --ranks 2 --run --transfer-channels 4", "--transfer-channels: caps NCCL's transfers; give --nccl"},
      {"cp --ranks 2 --run --register-buffers", "--register-buffers: registers the buffers NCCL moves; give --nccl"},
      {"cp --ranks 2 --run --ring-buffers 3",
       "--ring-buffers: the buffers NCCL receives the ring's K/V into; give --nccl"},
      {"cp --ranks 2 --run --nccl --ring-buffers 1", "--ring-buffers: expected an integer from 2 to 1024, got \"1\""},
      {"cp --ranks 2 --run --nccl --transfer-channels 65",
       "--transfer-channels: expected an integer from 0 to 64, got \"65\""},
      {"cp --ranks 2 --run --nccl --sm-margin -1", "--sm-margin: expected an integer from 0 to 1024, got \"-1\""},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = attnlab(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(split(r.err, '\n').size(), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

// --run needs a GPU: without one (this build without CUDA, or no device) one line and exit 3,
// before anything is printed; with one, the ranks run and their outputs match the whole run.
TEST(CpCli, RunWithoutAGpuExitsThreeBeforePrinting) {
  const CliRun r = attnlab("cp uniform-16x2048 --ranks 2 --strategy zigzag --run --reps 2 --warmup 1");
  if (r.exit_code == 3) {
    EXPECT_EQ(split(r.err, '\n').size(), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  } else {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("zigzag, ring"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("zigzag, all-gather"), std::string::npos) << r.out;
  }
}

// The model's tables show the runs of the split that the results folder holds, beside the model:
// a ring over 2 GPUs whose ranks computed 300 and 100 µs is 1.50x measured.
TEST(CpCli, MeasuredRunsOfTheSplitFollowItsTable) {
  const std::filesystem::path folder = scratch_dir() / "cp-results";
  std::filesystem::create_directories(folder);
  const std::vector<ResultRow> rows = {cp_rank_row(0, 2, "ring", 2, 300, "zigzag", "uniform-16x2048"),
                                       cp_rank_row(1, 2, "ring", 2, 100, "zigzag", "uniform-16x2048")};
  write_results_csv(folder / "cp.csv", rows);
  const CliRun r = attnlab("cp uniform-16x2048 --ranks 2", "ATTNLAB_RESULTS='" + folder.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = split(r.out, '\n');
  const auto measured = std::find_if(lines.begin(), lines.end(),
                                     [](const std::string& l) { return l.starts_with("measured ring on 2 GPUs"); });
  ASSERT_NE(measured, lines.end()) << r.out;
  EXPECT_NE(measured->find("imbalance 1.50x"), std::string::npos) << *measured;
  EXPECT_NE(measured->find("1.50x the whole / 2"), std::string::npos) << *measured;  // 300 against 400 / 2
  EXPECT_NE(measured->find("slowest run 310"), std::string::npos) << *measured;      // 300 + 10
  EXPECT_NE(r.out.find("zigzag: each document"), std::string::npos);
  // Only zigzag's table is followed by it: the rows are of that split alone.
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("measured"); }),
            1);
  std::filesystem::remove_all(folder);
}

// --nccl forks one process per rank: without N GPUs (or NCCL) a rank says so in one line, exit 3,
// and nothing is printed; with them, each exchange's ranks show their runs and transfers.
TEST(CpCli, NcclRunWithoutTheGpusExitsThreeInOneLine) {
  const CliRun r = attnlab("cp uniform-16x2048 --ranks 2 --strategy zigzag --run --nccl --reps 2 --warmup 1");
  if (r.exit_code == 3) {
    EXPECT_EQ(split(r.err, '\n').size(), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  } else {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("K/V over NCCL"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("transfers us"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace attnlab::cli_run
