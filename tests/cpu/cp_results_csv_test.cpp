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

// The fixed columns of a good forward row, then ranks, cp_strategy and a step row's gpus.
const std::string header =
    "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,useful_tflops,"
    "scores_computed,scores_useful,rel_l2_error,ranks,cp_strategy,gpus\n";
const std::string fwd_row = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01,";

TEST_F(CpResultsCsv, RanksAndStrategyRoundTripAndStayEmptyElsewhere) {
  ResultRow cp = our_row("varlen", 100);
  cp.ranks = 4;
  cp.cp_strategy = "zigzag";
  const ResultRow plain = our_row("varlen", 90);
  const auto path = dir_ / "cp.csv";
  write_results_csv(path, {cp, plain});
  EXPECT_EQ(read_results_csv(path), (std::vector<ResultRow>{cp, plain}));
  // A file without the two columns (every file written before them) reads as no CP run.
  const auto old =
      write("old.csv", header.substr(0, header.find(",ranks")) + "\n" + fwd_row.substr(0, fwd_row.size() - 1) + "\n");
  const std::vector<ResultRow> rows = read_results_csv(old);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].ranks);
  EXPECT_EQ(rows[0].cp_strategy, "");
  EXPECT_EQ(read_results_csv(write("good.csv", header + fwd_row + "1024,documents,\n")).at(0).ranks, 1024);
}

TEST_F(CpResultsCsv, BadRanksOrStrategyNameFileLineAndColumn) {
  const std::string step_row = "s,varlen,torch-step-fa2,H100,bf16,16,128,true,step,1,1,1,1,10,5,0.01,";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fwd_row + "0,zigzag,", ":2: ranks: expected an integer from 1 to 1024, got \"0\""},
      {fwd_row + "1025,zigzag,", ":2: ranks: expected an integer from 1 to 1024, got \"1025\""},
      {fwd_row + "two,zigzag,", ":2: ranks: expected an integer from 1 to 1024, got \"two\""},
      {fwd_row + "4,ring,", ":2: cp_strategy: expected contiguous, zigzag or documents, got \"ring\""},
      {fwd_row + "4,,", ":2: cp_strategy: a context-parallel row names both ranks and cp_strategy, got an empty cell"},
      {fwd_row + ",zigzag,", ":2: ranks: a context-parallel row names both ranks and cp_strategy, got an empty cell"},
      {step_row + "4,zigzag,1",
       ":2: ranks: only a context-parallel attention run holds a value, not a step row (pass step)"},
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
