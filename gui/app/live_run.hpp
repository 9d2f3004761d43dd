#pragma once
// The Timings view's live run: `attnlab run` over the current scenario on this
// machine's GPU, as a child process on a worker thread (the GUI links no CUDA),
// its rows added to the results when it ends.
#include <filesystem>
#include <future>
#include <memory>
#include <string>

#include "analysis/results_files.hpp"
#include "core/scenario/scenario.hpp"
#include "gui/app/results_state.hpp"

namespace attnlab::gui {

struct LiveRunOutcome {
  int exit_code = -1;
  std::string output;         // what the CLI printed (stdout and stderr)
  std::filesystem::path csv;  // the rows it wrote
};

// A private folder for one run's scenario and CSV: a new name from mkdtemp (mode 0700), so
// nothing planted at a guessable path (a folder, a symlink) is ever reused; removed with
// what it holds when the run's rows are read, or when the GUI ends.
class RunFolder {
 public:
  // Throws std::system_error where the folder cannot be made.
  RunFolder();
  ~RunFolder();
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct LiveRun {
  std::unique_ptr<RunFolder> folder;  // before `pending`: destroyed after it, once the child has ended
  std::future<LiveRunOutcome> pending;
  std::string status;  // what the last run did, for the view
  bool running() const { return pending.valid(); }
};

// The CLI built beside this GUI (empty where it was not built).
std::filesystem::path attnlab_cli();
// A live run needs a CUDA device node and the CLI.
bool live_runs_possible(const std::filesystem::path& cli);

// Saves the scenario in a new RunFolder (as NAME.toml, so its rows carry its name) and
// starts `CLI run FILE --out CSV` on a worker thread.
void start_live_run(LiveRun& run, const Scenario& scenario, const std::filesystem::path& cli);
// Each frame: once the run has ended, loads its CSV into `results` (a failure is
// reported there with the CLI's last words), says so in run.status and removes its folder.
void collect_live_run(LiveRun& run, ResultsState& results);

}  // namespace attnlab::gui
