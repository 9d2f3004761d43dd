#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/io/input_error.hpp"
#include "core/results/results_csv.hpp"
#include "tests/cpu/test_folder.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

class CpResultsCsv : public TestFolder {
 protected:
  CpResultsCsv() : TestFolder("attnlab_cp_results_") {}
};

// The fixed columns of a good forward row, then ranks, cp_strategy, a step row's gpus and a rank's columns.
const std::string header =
    "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,useful_tflops,"
    "scores_computed,scores_useful,rel_l2_error,ranks,cp_strategy,gpus,cp_exchange,cp_rank,cp_gpus,cp_whole_us,"
    "cp_run_us,cp_transfer_us,cp_exposed_us,cp_kv_bytes_received\n";
// A rank's columns after gpus: on one GPU, and over NCCL on four.
const std::string one_gpu_rank = "ring,1,1,400,,,,";
const std::string nccl_rank = "all-gather,3,4,400,150,80,20,1048576";
const std::string fwd_row = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01,";

TEST_F(CpResultsCsv, RanksRoundTripApartFromTheRunsAndStayEmptyElsewhere) {
  ResultRow cp = cp_rank_row(3, 4, "ring", 4, 100);
  cp.cp_sm_margin = 16;
  cp.cp_registered_buffers = 1;
  cp.cp_ring_buffers = 3;
  ResultRow one_gpu = cp;
  one_gpu.cp_gpus = 1;
  one_gpu.cp_run_us = one_gpu.cp_transfer_us = one_gpu.cp_exposed_us = std::nullopt;
  one_gpu.cp_kv_bytes_received = one_gpu.cp_sm_margin = one_gpu.cp_registered_buffers = std::nullopt;
  one_gpu.cp_ring_buffers = std::nullopt;
  const ResultRow plain = our_row("varlen", 90);
  const auto path = dir_ / "cp.csv";
  write_results_csv(path, {cp, plain, one_gpu});
  // A rank's row never joins the attention runs (a table of them would take it for the scenario's run).
  const ResultsRows read = read_results_rows(path);
  EXPECT_EQ(read.runs, (std::vector<ResultRow>{plain}));
  EXPECT_EQ(read.cp, (std::vector<ResultRow>{cp, one_gpu}));
  EXPECT_EQ(read_results_rows(path, [](const ResultRow&) { return false; }).cp.size(), 2u);
  // An SM margin is a ring's over NCCL: on one GPU no transfer ran beside the kernels.
  ResultRow margin_on_one_gpu = one_gpu;
  margin_on_one_gpu.cp_sm_margin = 8;
  write_results_csv(dir_ / "margin.csv", {margin_on_one_gpu});
  EXPECT_THROW(read_results_rows(dir_ / "margin.csv"), InputError);
  // So are registered buffers (the column holds 1 or nothing) and ring buffers (2 or more).
  ResultRow registered_on_one_gpu = one_gpu;
  registered_on_one_gpu.cp_registered_buffers = 1;
  ResultRow registered_two = cp;
  registered_two.cp_registered_buffers = 2;
  ResultRow ring_buffers_on_one_gpu = one_gpu;
  ring_buffers_on_one_gpu.cp_ring_buffers = 3;
  ResultRow one_ring_buffer = cp;
  one_ring_buffer.cp_ring_buffers = 1;
  const std::pair<ResultRow, std::string> bad_registered[] = {
      {registered_on_one_gpu,
       "cp_registered_buffers: only a context-parallel run over several GPUs (cp_gpus > 1) holds a value"},
      {registered_two, "cp_registered_buffers: expected 1 (registered) or an empty cell, got 2"},
      {ring_buffers_on_one_gpu,
       "cp_ring_buffers: only a context-parallel run over several GPUs (cp_gpus > 1) holds a value"},
      {one_ring_buffer, "cp_ring_buffers: expected 2 to 1024 buffers or an empty cell (2), got 1"}};
  for (const auto& [row, message] : bad_registered) {
    write_results_csv(dir_ / "registered.csv", {row});
    try {
      read_results_rows(dir_ / "registered.csv");
      ADD_FAILURE() << "no InputError for " << message;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  // A file without the two columns (every file written before them) reads as no CP run.
  const auto old =
      write("old.csv", header.substr(0, header.find(",ranks")) + "\n" + fwd_row.substr(0, fwd_row.size() - 1) + "\n");
  const std::vector<ResultRow> rows = read_results_csv(old);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].ranks);
  EXPECT_EQ(rows[0].cp_strategy, "");
  EXPECT_EQ(
      read_results_rows(write("good.csv", header + fwd_row + "1024,documents,," + one_gpu_rank + "\n")).cp.at(0).ranks,
      1024);
  EXPECT_EQ(read_results_rows(write("nccl.csv", header + fwd_row + "4,zigzag,," + nccl_rank + "\n")).cp.at(0).cp_rank,
            3);
}

TEST_F(CpResultsCsv, BadRanksOrStrategyNameFileLineAndColumn) {
  const std::string step_row = "s,varlen,torch-step-fa2,H100,bf16,16,128,true,step,1,1,1,1,10,5,0.01,";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fwd_row + "0,zigzag,," + one_gpu_rank, ":2: ranks: expected an integer from 1 to 1024, got \"0\""},
      {fwd_row + "1025,zigzag,," + one_gpu_rank, ":2: ranks: expected an integer from 1 to 1024, got \"1025\""},
      {fwd_row + "two,zigzag,," + one_gpu_rank, ":2: ranks: expected an integer from 1 to 1024, got \"two\""},
      {fwd_row + "4,ring,," + one_gpu_rank, ":2: cp_strategy: expected contiguous, zigzag or documents, got \"ring\""},
      {fwd_row + "4,,," + one_gpu_rank,
       ":2: cp_strategy: a context-parallel row names both ranks and cp_strategy, got an empty cell"},
      {fwd_row + ",zigzag,," + one_gpu_rank,
       ":2: ranks: a context-parallel row names both ranks and cp_strategy, got an empty cell"},
      {step_row + "4,zigzag,1,,,,,,,,",
       ":2: ranks: only a context-parallel attention run holds a value, not a step row (pass step)"},
      {fwd_row + "4,zigzag,,window,1,1,400,,,,", ":2: cp_exchange: expected ring or all-gather, got \"window\""},
      {fwd_row + "4,zigzag,,ring,,1,400,,,,",
       ":2: cp_rank: a context-parallel row names its exchange, rank, GPUs and whole run, got an empty cell"},
      {fwd_row + ",,,ring,,,,,,,",
       ":2: cp_exchange: only a context-parallel row (ranks and cp_strategy) holds a value"},
      {fwd_row + "4,zigzag,,ring,4,1,400,,,,", ":2: cp_rank: expected a rank below ranks (4), got 4"},
      {fwd_row + "4,zigzag,,ring,0,2,400,,,,",
       ":2: cp_gpus: expected 1 (the ranks one after another) or ranks (4, one GPU each), got 2"},
      {fwd_row + "4,zigzag,,ring,0,4,400,150,80,,1048576",
       ":2: cp_exposed_us: a run over several GPUs names its run, transfers, exposed time and bytes received, got an "
       "empty cell"},
      {fwd_row + "4,zigzag,,ring,0,1,400,150,,,",
       ":2: cp_run_us: only a context-parallel run over several GPUs (cp_gpus > 1) holds a value"},
      {fwd_row + "4,zigzag,,ring,0,1,0,,,,", ":2: cp_whole_us: expected a number of µs from 0.001 to 1e9, got \"0\""},
  };
  for (const auto& [row, message] : cases) {
    const auto path = write("bad.csv", header + row + "\n");
    try {
      read_results_rows(path);
      ADD_FAILURE() << "no InputError for " << row;
    } catch (const InputError& e) {
      EXPECT_EQ(e.what(), path.string() + message);
    }
  }
}

}  // namespace
}  // namespace attnlab
