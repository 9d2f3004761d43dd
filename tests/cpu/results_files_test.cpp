// Loading a results folder, as the CLI and the GUI both do: every *.csv whatever its name,
// in the primary-run order; a broken file named and skipped; the folder's ceilings.toml.
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/results_files.hpp"
#include "core/io/input_error.hpp"
#include "tests/cpu/test_folder.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

class ResultsFiles : public TestFolder {
 protected:
  ResultsFiles() : TestFolder("attnlab-results-files-") {}
};

const char* const ceilings_text =
    "[gemm_bf16]\ntflops = 500.0\nwhat = \"a GEMM\"\ngpu = \"A GPU\"\ndate = \"2026-01-01\"\nsource = \"a test\"\n"
    "[copy]\ntbps = 2.5\nwhat = \"a copy\"\ngpu = \"A GPU\"\ndate = \"2026-01-01\"\nsource = \"a test\"\n";

TEST_F(ResultsFiles, EveryCsvLoadsInNameOrderWithoutItsExtension) {
  write_results_csv(dir_ / "zeta.csv", {our_row("varlen", 300)});
  write_results_csv(dir_ / "alpha-beta.csv", {our_row("varlen", 200)});
  write_results_csv(dir_ / "alpha.csv", {our_row("varlen", 100), our_row("packed", 700)});
  write("notes.txt", "not a results file\n");
  LoadedResults results;
  load_results_folder(results, dir_);
  ASSERT_EQ(results.files.size(), 3u);
  // "alpha" before "alpha-beta": by the name without ".csv" ('-' sorts before '.').
  EXPECT_EQ(results.files[0].path.filename(), "alpha.csv");
  EXPECT_EQ(results.files[1].path.filename(), "alpha-beta.csv");
  EXPECT_EQ(results.files[2].path.filename(), "zeta.csv");
  EXPECT_EQ(total_rows(results), 4u);
  EXPECT_TRUE(results.problems.empty());
  EXPECT_FALSE(results.ceilings);
}

// The rows of all files together are bounded: a file that would pass the budget is named and skipped.
TEST_F(ResultsFiles, AFolderHoldsAtMostItsRowBudget) {
  write_results_csv(dir_ / "a.csv", {our_row("varlen", 100), our_row("packed", 700)});
  write_results_csv(dir_ / "b.csv", {our_row("varlen", 200), our_row("packed", 800)});
  write_results_csv(dir_ / "c.csv", {our_row("varlen", 300)});
  LoadedResults results;
  results.row_budget = 3;
  load_results_folder(results, dir_);
  EXPECT_EQ(total_rows(results), 3u);
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("b.csv: 2 rows would pass the 3 rows all results files may hold together"),
            std::string::npos)
      << results.problems[0];
  EXPECT_EQ(LoadedResults{}.row_budget, max_results_folder_rows);
}

// GEMM files share the budget: a folder of many valid GEMM files cannot hold more rows than the folder may.
TEST_F(ResultsFiles, GemmFilesCountInTheRowBudget) {
  write_results_csv(dir_ / "a.csv", {our_row("varlen", 100), our_row("packed", 700)});
  std::filesystem::create_directories(dir_ / "gemms");
  const std::string gemm = "scenario,gpu,dtype,gemm,pass,m,n,k,per_step,median_us\nx,G,bf16,lm_head,fwd,8,8,8,1,2.5\n";
  write("gemms/a.csv", gemm);
  write("gemms/b.csv", gemm);
  LoadedResults results;
  results.row_budget = 3;
  load_results_folder(results, dir_);
  ASSERT_EQ(results.gemms.size(), 1u);
  EXPECT_EQ(results.gemms[0].path.filename(), "a.csv");
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("b.csv: 1 rows would pass the 3 rows"), std::string::npos) << results.problems[0];
}

TEST_F(ResultsFiles, ABrokenFileIsNamedAndSkippedAndLoadingAgainReplaces) {
  write_results_csv(dir_ / "a-good.csv", {our_row("varlen", 500), our_row("packed", 1700)});
  write("b-broken.csv", "this,is,not\na,results,file\n");
  LoadedResults results;
  load_results_folder(results, dir_);
  ASSERT_EQ(results.files.size(), 1u);
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("b-broken.csv"), std::string::npos) << results.problems[0];
  load_results(results, dir_);
  EXPECT_EQ(results.files.size(), 1u);
  EXPECT_EQ(results.problems.size(), 1u);
}

// Nothing loaded is never silent: a missing folder, file or empty path is a problem naming it.
TEST_F(ResultsFiles, AMissingFolderFileOrEmptyPathIsAProblem) {
  LoadedResults results;
  load_results_folder(results, dir_ / "nonexistent");
  EXPECT_TRUE(results.files.empty());
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_EQ(results.problems[0], (dir_ / "nonexistent").string() +
                                     ": cannot read the results folder (No such file or directory); nothing "
                                     "measured is loaded");
  load_results(results, dir_ / "nonexistent.csv");
  ASSERT_EQ(results.problems.size(), 2u);
  EXPECT_EQ(results.problems[1], (dir_ / "nonexistent.csv").string() + ": no such file or folder");
  load_results(results, "");
  ASSERT_EQ(results.problems.size(), 3u);
  EXPECT_EQ(results.problems[2], "\"\": an empty path; expected a results CSV or a folder of them");
}

// A ceilings.toml the system will not look at (a symlink loop) is named, not taken for an absent one.
TEST_F(ResultsFiles, ACeilingsSymlinkLoopIsAProblem) {
  std::filesystem::create_symlink("ceilings.toml", dir_ / "ceilings.toml");
  LoadedResults results;
  load_results_folder(results, dir_);
  EXPECT_FALSE(results.ceilings);
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("ceilings.toml"), std::string::npos) << results.problems[0];
  EXPECT_NE(results.problems[0].find("Too many levels of symbolic links"), std::string::npos) << results.problems[0];
}

// Problems name paths once and printably, whatever a folder's name holds; GEMM files count in the row budget.
TEST_F(ResultsFiles, ProblemsNameAPathOnceAndPrintably) {
  const std::filesystem::path odd = dir_ / "r\x1b[31m\n";
  std::filesystem::create_directories(odd / "gemms");
  std::ofstream(odd / "broken.csv") << "not,a\nresults,file\n";
  LoadedResults results;
  load_results_folder(results, odd);
  ASSERT_EQ(results.problems.size(), 1u);
  const std::string& problem = results.problems[0];
  EXPECT_EQ(problem.find('\x1b'), std::string::npos) << problem;
  EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
  EXPECT_EQ(problem.rfind(printable(odd.string(), 4096) + "/broken.csv: ", 0), 0u) << problem;
  EXPECT_EQ(problem.find("broken.csv", problem.find("broken.csv") + 1), std::string::npos) << problem;
}

TEST_F(ResultsFiles, TheFoldersCeilingsAreLoadedWithIt) {
  write("ceilings.toml", ceilings_text);
  LoadedResults results;
  load_results_folder(results, dir_);
  ASSERT_TRUE(results.ceilings) << (results.problems.empty() ? "" : results.problems[0]);
  EXPECT_EQ(results.ceilings->tflops, 500.0);
  EXPECT_EQ(results.ceilings->tbps, 2.5);
  EXPECT_EQ(results.ceilings->ridge(), 200.0);
  EXPECT_EQ(results.ceilings->roof_tflops(100), 250.0);  // bandwidth-bound below the ridge
  EXPECT_EQ(results.ceilings->roof_tflops(1000), 500.0);
  EXPECT_EQ(results.ceilings->gemm.gpu, "A GPU");
  EXPECT_EQ(results.ceilings_file, dir_ / "ceilings.toml");
}

TEST_F(ResultsFiles, BadCeilingsNameTheFileAndTheKey) {
  const auto error_of = [&](const std::string& text) {
    write("ceilings.toml", text);
    LoadedResults results;
    load_results_folder(results, dir_);
    EXPECT_FALSE(results.ceilings);
    return results.problems.size() == 1 ? results.problems[0] : std::string("no single problem");
  };
  const std::string file = (dir_ / "ceilings.toml").string();
  std::string text = ceilings_text;
  EXPECT_EQ(error_of(text.substr(0, text.find("[copy]"))), file + ": copy: expected a [copy] table");
  text.replace(text.find("500.0"), 5, "-1.0");
  EXPECT_EQ(error_of(text), file + ": gemm_bf16.tflops: expected a number of TFLOP/s from 0.001 to 1000000");
  // A subnormal rate above 0 would price a step at infinity.
  text.replace(text.find("-1.0"), 4, "1e-320");
  EXPECT_EQ(error_of(text), file + ": gemm_bf16.tflops: expected a number of TFLOP/s from 0.001 to 1000000");
  EXPECT_EQ(error_of(std::string(ceilings_text).replace(std::string(ceilings_text).find("gpu"), 13, "")),
            file + ": gemm_bf16.gpu: expected one line of printable text, at most 1000 bytes");
  EXPECT_NE(error_of("[gemm_bf16\n").find(file + ":1:"), std::string::npos);
  EXPECT_NE(error_of("tflops = 1\xc3\xa9\n").find("non-ASCII"), std::string::npos);  // the TOML guard's check
}

}  // namespace
}  // namespace attnlab
