#include "analysis/measured_cp.hpp"

#include <gtest/gtest.h>

#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

TEST(MeasuredCp, OneRunPerExchangeGpusAndSettingsWithEveryRankPresent) {
  LoadedResults results;
  ResultsFile file;
  file.path = "results/h200/attnlab-cp.csv";
  file.cp = {cp_rank_row(1, 2, "all-gather", 2, 120),
             cp_rank_row(0, 2, "all-gather", 2, 80),
             cp_rank_row(0, 2, "ring", 1, 90),  // its rank 1 is missing: no run
             cp_rank_row(0, 2, "ring", 2, 100, "contiguous"),
             cp_rank_row(1, 2, "ring", 2, 60, "contiguous"),
             cp_rank_row(0, 4, "ring", 4, 50)};
  results.files.push_back(file);
  ResultsFile later = file;
  later.path = "results/h200/other.csv";
  later.cp = {cp_rank_row(0, 2, "all-gather", 2, 999), cp_rank_row(1, 2, "all-gather", 2, 999),
              cp_rank_row(0, 2, "ring", 2, 70),        cp_rank_row(1, 2, "ring", 2, 110),
              cp_rank_row(1, 2, "ring", 1, 30),        cp_rank_row(0, 2, "ring", 1, 20)};
  results.files.push_back(later);

  const std::vector<MeasuredCpRun> runs = measured_cp_runs(results, "uniform-64x512", 2, CpStrategy::zigzag);
  ASSERT_EQ(runs.size(), 3u);
  // Ring first, one GPU before two; the one-GPU ring from the later file, the first with it whole.
  EXPECT_EQ(runs[0].exchange, CpExchange::ring);
  EXPECT_EQ(runs[0].gpus, 1);
  EXPECT_EQ(runs[0].file, "other.csv");
  EXPECT_DOUBLE_EQ(runs[0].slowest_run_us(), 0);
  EXPECT_EQ(runs[1].gpus, 2);
  EXPECT_EQ(runs[2].exchange, CpExchange::all_gather);
  EXPECT_EQ(runs[2].file, "attnlab-cp.csv");  // the first file's copy of a run, not the later one's
  const MeasuredCpRun& g = runs[2];
  EXPECT_EQ(g.gpus, 2);
  EXPECT_EQ(g.ranks[0]->cp_rank, 0);
  EXPECT_EQ(g.ranks[1]->cp_rank, 1);
  EXPECT_DOUBLE_EQ(g.slowest_compute_us(), 120);
  EXPECT_DOUBLE_EQ(g.mean_compute_us(), 100);
  EXPECT_DOUBLE_EQ(g.slowest_run_us(), 140);
  EXPECT_DOUBLE_EQ(g.most_exposed_us(), 10);
  EXPECT_DOUBLE_EQ(g.whole_us, 400);
  EXPECT_TRUE(measured_cp_runs(results, "web-mix-2048", 2, CpStrategy::zigzag).empty());
  // The same exchange on as many GPUs with other transfer settings is a run of its own, after the default.
  ResultsFile tuned;
  tuned.path = "results/h200/tuned.csv";
  for (int rank : {0, 1}) {
    ResultRow r = cp_rank_row(rank, 2, "ring", 2, 60);
    r.cp_sm_margin = r.cp_transfer_channels = 4;
    tuned.cp.push_back(r);
  }
  results.files.insert(results.files.begin(), tuned);
  const std::vector<MeasuredCpRun> with_tuned = measured_cp_runs(results, "uniform-64x512", 2, CpStrategy::zigzag);
  ASSERT_EQ(with_tuned.size(), 4u);
  EXPECT_EQ(with_tuned[1].file, "other.csv");
  EXPECT_EQ(with_tuned[2].file, "tuned.csv");
  EXPECT_EQ(with_tuned[2].settings.sm_margin, 4);
  EXPECT_EQ(with_tuned[2].settings.transfer_channels, 4);
  EXPECT_EQ(measured_cp_title(with_tuned[2]), "ring on 2 GPUs, 4 SMs left, 4 channels");
  // Registered buffers make a run of their own too, after the one with NCCL's staging copy.
  ResultsFile registered;
  registered.path = "results/h100/registered.csv";
  for (int rank : {0, 1}) {
    ResultRow r = cp_rank_row(rank, 2, "ring", 2, 50);
    r.cp_registered_buffers = 1;
    registered.cp.push_back(r);
  }
  results.files.push_back(registered);
  const std::vector<MeasuredCpRun> with_registered = measured_cp_runs(results, "uniform-64x512", 2, CpStrategy::zigzag);
  ASSERT_EQ(with_registered.size(), 5u);
  EXPECT_EQ(with_registered[2].file, "registered.csv");
  EXPECT_TRUE(with_registered[2].settings.registered_buffers);
  EXPECT_FALSE(with_registered[1].settings.registered_buffers);
  EXPECT_EQ(measured_cp_title(with_registered[2]), "ring on 2 GPUs, registered buffers");
  MeasuredCpRun three = with_registered[2];
  three.settings.ring_buffers = 3;
  EXPECT_EQ(measured_cp_title(three), "ring on 2 GPUs, registered buffers, 3 ring buffers");
  EXPECT_EQ(measured_cp_runs(results, "uniform-64x512", 2, CpStrategy::contiguous).size(), 1u);
}

}  // namespace
}  // namespace attnlab
