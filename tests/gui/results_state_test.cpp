// A folder of results with a broken file: the good files load, the broken one
// is named in the problems and skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/results_files.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

std::filesystem::path fresh_folder(const char* name) {
  const auto folder = unique_temp_path(name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

TEST(LoadedResults, BrokenFileIsReportedAndSkipped) {
  const auto folder = fresh_folder("results");
  write_results_csv(folder / "a-good.csv", {our_row("varlen", 500), our_row("packed", 1700)});
  std::ofstream(folder / "b-broken.csv") << "this,is,not\na,results,file\n";
  std::ofstream(folder / "notes.txt") << "not a csv\n";
  LoadedResults results;
  load_results_folder(results, folder);
  ASSERT_EQ(results.files.size(), 1u);
  EXPECT_EQ(results.files[0].rows.size(), 2u);
  EXPECT_EQ(total_rows(results), 2u);
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("b-broken.csv"), std::string::npos) << results.problems[0];
  // Loading the folder again replaces, never duplicates.
  load_results(results, folder);
  EXPECT_EQ(results.files.size(), 1u);
  EXPECT_EQ(results.problems.size(), 1u);
  std::filesystem::remove_all(folder);
}

TEST(LoadedResults, MissingOrEmptyFolderAddsNothing) {
  LoadedResults results;
  const auto empty = fresh_folder("empty");
  load_results_folder(results, empty);
  std::filesystem::remove_all(empty);
  load_results_folder(results, "/nonexistent/attnlab/results");
  EXPECT_TRUE(results.files.empty());
  EXPECT_TRUE(results.problems.empty());
  load_results(results, "/nonexistent/attnlab/file.csv");
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("/nonexistent/attnlab/file.csv"), std::string::npos);
}

}  // namespace
}  // namespace attnlab::gui
