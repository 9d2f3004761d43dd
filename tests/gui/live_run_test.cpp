// The live run's plumbing with a stand-in for the CLI (no GPU needed): its CSV's
// rows are added to the results, and a failing run is reported, not fatal.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/scenario/scenario_file.hpp"
#include "gui/app/live_run.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

// A shell script that acts as `attnlab run FILE --out CSV`.
std::filesystem::path fake_cli(const char* name, const std::string& body) {
  const auto path = unique_temp_path(name);
  std::ofstream(path) << "#!/bin/sh\n" << body;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

void wait_for(LiveRun& run, ResultsState& results) {
  for (int i = 0; i < 500 && run.running(); ++i) {
    collect_live_run(run, results);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(run.running());
}

TEST(LiveRun, RowsOfTheRunAreAdded) {
  const auto rows = unique_temp_path("live-rows.csv");
  write_results_csv(rows, {our_row("varlen", 510), our_row("packed", 2300)});
  // $1 = run, $2 = the saved scenario, $3 = --out, $4 = the CSV to write.
  const auto cli = fake_cli(
      "cli-ok.sh", "test \"$1\" = run && test -f \"$2\" && test \"$3\" = --out && cp " + rows.string() + " \"$4\"\n");
  LiveRun run;
  ResultsState results;
  start_live_run(run, load_scenario("uniform-64x512"), cli);
  EXPECT_TRUE(run.running());
  wait_for(run, results);
  EXPECT_EQ(total_rows(results.loaded()), 2u) << run.status;
  EXPECT_NE(run.status.find("added 2 rows"), std::string::npos) << run.status;
  std::filesystem::remove(rows);
  std::filesystem::remove(cli);
}

TEST(LiveRun, FailingRunIsReported) {
  const auto cli = fake_cli("cli-fail.sh", "echo 'attnlab: no CUDA GPU found' >&2\nexit 3\n");
  LiveRun run;
  ResultsState results;
  start_live_run(run, load_scenario("uniform-64x512"), cli);
  wait_for(run, results);
  EXPECT_EQ(total_rows(results.loaded()), 0u);
  EXPECT_NE(run.status.find("exit 3"), std::string::npos) << run.status;
  EXPECT_NE(run.status.find("no CUDA GPU found"), std::string::npos) << run.status;
  std::filesystem::remove(cli);
}

// The run's folder is private and new: a folder or symlink planted at the name an earlier
// GUI used (/tmp/attnlab-gui-live-PID) is never written through, the folder the CLI gets is
// mode 0700, and it is gone once the rows are read, after a failed run too.
TEST(LiveRun, ItsFolderIsPrivateNewAndRemoved) {
  const auto victim = unique_temp_path("live-victim");
  const auto planted = std::filesystem::temp_directory_path() / ("attnlab-gui-live-" + std::to_string(getpid()));
  std::filesystem::remove_all(victim);
  std::filesystem::remove_all(planted);
  std::filesystem::create_directories(victim);
  std::filesystem::create_directory_symlink(victim, planted);
  const auto seen = unique_temp_path("live-seen.txt");
  const auto rows = unique_temp_path("live-rows-2.csv");
  write_results_csv(rows, {our_row("varlen", 510)});
  for (const bool ok : {true, false}) {
    const auto cli =
        fake_cli("cli-folder.sh", "d=$(dirname \"$2\"); echo \"$d $(stat -c %a \"$d\")\" > " + seen.string() + "\n" +
                                      (ok ? "cp " + rows.string() + " \"$4\"\n" : "exit 1\n"));
    LiveRun run;
    ResultsState results;
    start_live_run(run, load_scenario("uniform-64x512"), cli);
    wait_for(run, results);
    std::ifstream said(seen);
    std::string folder, mode;
    said >> folder >> mode;
    EXPECT_EQ(mode, "700") << folder;
    EXPECT_NE(folder, planted.string());
    EXPECT_FALSE(std::filesystem::exists(folder)) << folder << ": " << run.status;
    EXPECT_EQ(total_rows(results.loaded()), ok ? 1u : 0u) << run.status;
    std::filesystem::remove(cli);
  }
  EXPECT_TRUE(std::filesystem::is_empty(victim));
  std::filesystem::remove(planted);
  std::filesystem::remove_all(victim);
  std::filesystem::remove(seen);
  std::filesystem::remove(rows);
}

}  // namespace
}  // namespace attnlab::gui
