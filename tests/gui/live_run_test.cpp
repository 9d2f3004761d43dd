// The live run's plumbing with a stand-in for the CLI (no GPU needed): its CSV's
// rows are added to the results, and a failing run is reported, not fatal.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/scenario_file.hpp"
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

void wait_for(LiveRun& run, LoadedResults& results) {
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
  LoadedResults results;
  start_live_run(run, load_scenario("uniform-64x512"), cli);
  EXPECT_TRUE(run.running());
  wait_for(run, results);
  EXPECT_EQ(total_rows(results), 2u) << run.status;
  EXPECT_NE(run.status.find("added 2 rows"), std::string::npos) << run.status;
  std::filesystem::remove(rows);
  std::filesystem::remove(cli);
}

TEST(LiveRun, FailingRunIsReported) {
  const auto cli = fake_cli("cli-fail.sh", "echo 'attnlab: no CUDA GPU found' >&2\nexit 3\n");
  LiveRun run;
  LoadedResults results;
  start_live_run(run, load_scenario("uniform-64x512"), cli);
  wait_for(run, results);
  EXPECT_EQ(total_rows(results), 0u);
  EXPECT_NE(run.status.find("exit 3"), std::string::npos) << run.status;
  EXPECT_NE(run.status.find("no CUDA GPU found"), std::string::npos) << run.status;
  std::filesystem::remove(cli);
}

}  // namespace
}  // namespace attnlab::gui
