#include <gtest/gtest.h>

#include <vector>

#include "core/cost/context_parallel.hpp"
#include "run/cp_timing.hpp"
#include "tests/cpu/cp_scenario.hpp"

namespace attnlab {
namespace {

// A rank's times over NCCL, as run/cp_over_nccl.cpp hands them back.
CpRankTime rank_over_nccl(double compute_us) {
  CpRankTime r;
  r.compute = timing_of({compute_us});
  r.steps = 2;
  r.launches = 2;
  CpTransferTime t;
  t.wall_us = compute_us + 20;
  t.compute_us = compute_us;
  t.transfer_us = 30;
  t.exposed_us = 20;
  t.bytes_received = 4096;
  r.transfer = t;
  return r;
}

TEST(CpResultRows, TheRingsSettingsGoOnItsRowsAloneAndRegistrationOnBoth) {
  const Scenario s = documents({64, 32});
  const std::vector<CpCost> models{model_context_parallel(s, 2, CpStrategy::zigzag)};
  CpTimes times;
  times.whole = timing_of({100});
  times.gpus = 2;
  times.settings = {.sm_margin = 4, .transfer_channels = 8, .registered_buffers = true, .ring_buffers = 3};
  for (CpExchange exchange : all_cp_exchanges)
    times.exchanges.push_back({CpStrategy::zigzag, exchange, {rank_over_nccl(60), rank_over_nccl(50)}});
  const std::vector<ResultRow> rows = cp_result_rows(s, models, times, RunInfo{"H100", "580", "13.0", "abc", "now"});
  ASSERT_EQ(rows.size(), 4u);
  for (const ResultRow& row : rows) {
    const bool ring = row.cp_exchange == "ring";
    EXPECT_EQ(row.cp_registered_buffers, 1) << row.cp_exchange;
    EXPECT_EQ(row.cp_sm_margin, ring ? std::optional(4) : std::nullopt) << row.cp_exchange;
    EXPECT_EQ(row.cp_transfer_channels, ring ? std::optional(8) : std::nullopt) << row.cp_exchange;
    EXPECT_EQ(row.cp_ring_buffers, ring ? std::optional(3) : std::nullopt) << row.cp_exchange;
    EXPECT_EQ(row.cp_gpus, 2);
    EXPECT_DOUBLE_EQ(*row.cp_exposed_us, 20);
  }
  EXPECT_DOUBLE_EQ(*rows[0].median_us, 60);
  EXPECT_EQ(rows[1].cp_rank, 1);
  // NCCL's defaults name nothing: two ring buffers are the empty cell.
  times.settings = {};
  for (const ResultRow& row : cp_result_rows(s, models, times, RunInfo{})) {
    EXPECT_FALSE(row.cp_registered_buffers || row.cp_sm_margin || row.cp_transfer_channels || row.cp_ring_buffers);
  }
}

}  // namespace
}  // namespace attnlab
