#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/results/results_csv.hpp"
#include "tests/cpu/test_folder.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

class ResultsCsv : public TestFolder {
 protected:
  ResultsCsv() : TestFolder("attnlab_results_") {}

  // The InputError message of reading `text` as a results file.
  std::string read_error(const std::string& text) {
    const fs::path path = write("bad.csv", text);
    try {
      read_results_csv(path);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError for:\n" << text;
    return {};
  }
};

ResultRow measured_row() {
  ResultRow r;
  r.scenario = "uniform-64x512";
  r.implementation = "varlen";
  r.source = "attnlab";
  r.gpu = "NVIDIA H100 80GB HBM3";
  r.dtype = DType::bf16;
  r.heads = 16;
  r.head_dim = 128;
  r.causal = true;
  r.pass = Pass::fwd;
  r.median_us = 512.25;
  r.min_us = 0.1;
  r.max_us = 1.0 / 3.0;
  r.useful_tflops = 1e-300;
  r.scores_computed = 8LL * 4096 * 4097 / 2 * 16;
  r.scores_useful = 64LL * 512 * 513 / 2 * 16;
  r.rel_l2_error = 3.0517578125e-05;
  r.kv_heads = 16;
  r.tokens = 32768;
  r.kernel = "mma-sm80";
  r.tile = "128x64";
  r.computed_tflops = 401.5;
  r.max_abs_error = 0.0078125;
  r.bleed_rel_l2 = 0.25;
  r.hbm_bytes_model = 1234567890123;
  r.hbm_bytes_measured = 1234567000000;
  r.extra_memory_bytes = 0;
  r.reps = 50;
  r.driver = "580.65.06";
  r.cuda_version = "13.0";
  r.commit = "1c61798";
  r.date = "2026-11-23T06:00:00Z";
  r.window_left = 512;
  r.window_right = 0;
  return r;
}

const std::string required_header =
    "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,useful_tflops,"
    "scores_computed,scores_useful,rel_l2_error";

TEST_F(ResultsCsv, HeaderStartsWithTheFixedColumns) {
  const fs::path path = dir_ / "a.csv";
  write_results_csv(path, {});
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.substr(0, required_header.size() + 1), required_header + ",");
  EXPECT_EQ(results_columns().size(), 47u);
  EXPECT_EQ(results_columns().back(), "cp_ring_buffers");
  EXPECT_EQ(required_results_columns().size(), 16u);
  EXPECT_TRUE(read_results_csv(path).empty());
}

TEST_F(ResultsCsv, RowsRoundTripExactly) {
  ResultRow peer = measured_row();
  peer.source = "pytorch";
  peer.implementation = "padded";    // the attnlab implementation it stands beside
  peer.gpu = "Vendor \"X\", rev 2";  // a comma and quotes
  peer.commit = " padded ";          // edge spaces survive the reader's trimming
  peer.dtype = DType::fp16;
  peer.pass = Pass::bwd;
  peer.causal = false;
  ResultRow model_only = measured_row();  // nothing measured: empty cells
  model_only.median_us = model_only.min_us = model_only.max_us = std::nullopt;
  model_only.useful_tflops = model_only.rel_l2_error = model_only.computed_tflops = std::nullopt;
  model_only.max_abs_error = model_only.bleed_rel_l2 = std::nullopt;
  model_only.hbm_bytes_measured = std::nullopt;
  model_only.reps = std::nullopt;
  model_only.kv_heads = std::nullopt;
  model_only.tile.clear();
  model_only.kernel.clear();
  model_only.gpu.clear();
  model_only.window_left = model_only.window_right = -1;  // unbounded
  const std::vector<ResultRow> rows = {measured_row(), peer, model_only};
  const fs::path path = dir_ / "nested" / "h100" / "run.csv";
  write_results_csv(path, rows);
  EXPECT_EQ(read_results_csv(path), rows);
  // Written atomically: only the file itself is left in its folder.
  EXPECT_EQ(std::distance(fs::directory_iterator(path.parent_path()), fs::directory_iterator()), 1);
  // Overwriting replaces the rows.
  write_results_csv(path, {peer});
  EXPECT_EQ(read_results_csv(path), std::vector<ResultRow>{peer});
}

TEST_F(ResultsCsv, ColumnsMayComeInAnyOrderAndExtrasMayBeMissingOrUnknown) {
  const fs::path path =
      write("shuffled.csv",
            "pass,rel_l2_error,my_note,scenario,causal,dtype,heads,head_dim,gpu,source,implementation,median_us,min_us,"
            "max_us,useful_tflops,scores_computed,scores_useful,bleed_rel_l2\n"
            "bwd,,hello,long-doc,false,fp16,8,64,H100,attnlab,packed,10.5,10,11,,100,50,0.125\n");
  const std::vector<ResultRow> rows = read_results_csv(path);
  ASSERT_EQ(rows.size(), 1u);
  const ResultRow& r = rows[0];
  EXPECT_EQ(r.scenario, "long-doc");
  EXPECT_EQ(r.implementation, "packed");
  EXPECT_EQ(r.pass, Pass::bwd);
  EXPECT_EQ(r.dtype, DType::fp16);
  EXPECT_FALSE(r.causal);
  EXPECT_EQ(r.heads, 8);
  EXPECT_EQ(r.head_dim, 64);
  EXPECT_EQ(r.median_us, 10.5);
  EXPECT_EQ(r.scores_computed, 100);
  EXPECT_EQ(r.bleed_rel_l2, 0.125);
  EXPECT_FALSE(r.rel_l2_error.has_value());
  EXPECT_FALSE(r.useful_tflops.has_value());
  EXPECT_FALSE(r.tokens.has_value());
  EXPECT_TRUE(r.kernel.empty());  // files written before the kernel column read as "not said"
  EXPECT_TRUE(r.driver.empty());
}

TEST_F(ResultsCsv, MissingRequiredColumnNamesFileAndColumn) {
  const std::string header_without_median =
      "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,"
      "min_us,max_us,useful_tflops,scores_computed,scores_useful,rel_l2_error";
  const std::string message = read_error(header_without_median + "\n");
  EXPECT_EQ(message, (dir_ / "bad.csv").string() + ": missing column median_us");
}

TEST_F(ResultsCsv, BadValuesNameFileLineAndColumn) {
  const std::string good = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01";
  const std::string file = (dir_ / "bad.csv").string();
  const auto with_line3 = [&](std::string row) { return required_header + "\n" + good + "\n" + row + "\n"; };
  // Line 3 of a file whose line 2 is good, and the message it must give.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"s,varlen,attnlab,H100,bf16,16,128,true,fwd,abc,1,1,1,10,5,0.01",
       ":3: median_us: expected a number of \xC2\xB5s from 0.001 to 1e9, got \"abc\""},
      {"s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,1.5,5,0.01",
       ":3: scores_computed: expected an integer >= 0, got \"1.5\""},
      {"s,varlen,attnlab,H100,bf32,16,128,true,fwd,1,1,1,1,10,5,0.01",
       ":3: dtype: expected bf16 or fp16, got \"bf32\""},
      {"s,varlen,attnlab,H100,bf16,16,128,yes,fwd,1,1,1,1,10,5,0.01",
       ":3: causal: expected true or false, got \"yes\""},
      {"s,varlen,attnlab,H100,bf16,16,128,true,forward,1,1,1,1,10,5,0.01",
       ":3: pass: expected fwd, bwd or step, got \"forward\""},
      {"s,varlen,attnlab,H100,bf16,,128,true,fwd,1,1,1,1,10,5,0.01", ":3: heads: expected a value, got an empty cell"},
      {"s,,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01",
       ":3: implementation: expected a value, got an empty cell"},
      {"s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5", ":3: fewer cells than the header has columns"},
      {"s,varlen,attnlab,\"H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01", ":3: a quoted cell is not closed"},
  };
  for (const auto& [row, message] : cases) EXPECT_EQ(read_error(with_line3(row)), file + message);
  EXPECT_EQ(read_error(""), file + ": empty file, expected a header line");
  EXPECT_EQ(read_error(required_header + ",heads\n"), file + ":1: column heads appears twice in the header");
}

// Every row says the window it computed: -1 (unbounded) to max_window on each side, both or
// neither (a file from before the columns).
TEST_F(ResultsCsv, WindowColumnsHoldBothSidesOrNeither) {
  const std::string header = required_header + ",window_left,window_right\n";
  const std::string row = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01,";
  const std::vector<ResultRow> read = read_results_csv(write("w.csv", header + row + "512,0\n" + row + "-1,-1\n"));
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(std::pair(read[0].window_left, read[0].window_right), std::pair(std::optional(512), std::optional(0)));
  EXPECT_EQ(std::pair(read[1].window_left, read[1].window_right), std::pair(std::optional(-1), std::optional(-1)));
  const std::vector<ResultRow> old =
      read_results_csv(write("old.csv", required_header + "\n" + row.substr(0, row.size() - 1) + "\n"));
  EXPECT_FALSE(old.at(0).window_left || old.at(0).window_right);
  const std::string file = (dir_ / "bad.csv").string();
  for (const auto& [cells, message] : std::vector<std::pair<std::string, std::string>>{
           {"512,", ":2: window_right: a row names both sides of its window or neither, got an empty cell"},
           {",0", ":2: window_left: a row names both sides of its window or neither, got an empty cell"},
           {"-2,0", ":2: window_left: expected an integer from -1 (unbounded) to 1048576, got \"-2\""},
           {"512,1048577", ":2: window_right: expected an integer from -1 (unbounded) to 1048576, got \"1048577\""},
           {"512,x", ":2: window_right: expected an integer from -1 (unbounded) to 1048576, got \"x\""},
       })
    EXPECT_EQ(read_error(header + row + cells + "\n"), file + message) << cells;
}

// A spreadsheet saving "CSV UTF-8" starts the file with a byte-order mark; without
// care it becomes part of the first column's name and that column reads as missing.
TEST_F(ResultsCsv, AByteOrderMarkAtTheStartIsSkipped) {
  const fs::path plain = dir_ / "plain.csv";
  write_results_csv(plain, {measured_row()});
  std::ifstream in(plain, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path marked = write("marked.csv", "\xEF\xBB\xBF" + text);
  EXPECT_EQ(read_results_csv(marked), std::vector<ResultRow>{measured_row()});
  std::string crlf;  // and Windows line ends, as the same spreadsheet writes them
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(read_results_csv(write("crlf.csv", "\xEF\xBB\xBF" + crlf)), std::vector<ResultRow>{measured_row()});
  EXPECT_EQ(read_error("\xEF\xBB\xBF"), (dir_ / "bad.csv").string() + ": empty file, expected a header line");
}

// Rows are checked and filtered one at a time: a reader holds what it keeps, and at most
// max_results_rows of it, whatever the file's length.
TEST_F(ResultsCsv, ReadersHoldOnlyTheRowsTheyKeep) {
  std::vector<ResultRow> rows(max_results_rows + 10, measured_row());
  rows[12345].scenario = "wanted";
  const fs::path path = dir_ / "many.csv";
  write_results_csv(path, rows);
  const auto wanted = read_results_csv(path, [](const ResultRow& r) { return r.scenario == "wanted"; });
  ASSERT_EQ(wanted.size(), 1u);
  EXPECT_EQ(wanted[0], rows[12345]);
  try {
    read_results_csv(path);
    FAIL() << "kept more than max_results_rows rows";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than " + std::to_string(max_results_rows) + " rows to keep"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ResultsCsv, MissingFileIsAnInputError) {
  EXPECT_THROW(read_results_csv(dir_ / "none.csv"), InputError);
  const fs::path a_file = write("plain", "x");
  EXPECT_THROW(write_results_csv(a_file / "x.csv", {}), InputError);  // a file where the folder should be
}

TEST_F(ResultsCsv, TheKernelColumnNamesTheCodeThatRan) {
  const fs::path path = dir_ / "k.csv";
  ResultRow naive = measured_row();
  naive.implementation = "naive";
  naive.kernel = "cublas";
  write_results_csv(path, {measured_row(), naive});
  std::ifstream in(path);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_NE(header.find(",kernel,"), std::string::npos) << header;
  EXPECT_NE(first.find(",mma-sm80,"), std::string::npos) << first;
  const std::vector<ResultRow> rows = read_results_csv(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel, "mma-sm80");
  EXPECT_EQ(rows[1].kernel, "cublas");
}

TEST_F(ResultsCsv, CellsAreQuotedOnlyWhereTheyMustBe) {
  EXPECT_EQ(csv_cell("plain text", "x"), "plain text");
  EXPECT_EQ(csv_cell("a,b", "x"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"hi\"", "x"), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_cell(" edge", "x"), "\" edge\"");
  EXPECT_THROW(csv_cell("a\nb", "x"), InputError);
}

TEST_F(ResultsCsv, ALineBreakCannotBeWritten) {
  ResultRow r = measured_row();
  r.gpu = "two\nlines";
  EXPECT_THROW(write_results_csv(dir_ / "x.csv", {r}), InputError);
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

}  // namespace
}  // namespace attnlab
