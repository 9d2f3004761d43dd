#include "gui/app/live_run.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "core/scenario/scenario_file.hpp"

namespace attnlab::gui {

namespace {

// Single quotes for the shell, with any single quote inside closed and reopened.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

LiveRunOutcome run_cli(const std::string& command, std::filesystem::path csv) {
  LiveRunOutcome outcome;
  outcome.csv = std::move(csv);
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    outcome.output = "cannot start: " + command;
    return outcome;
  }
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) outcome.output += buffer;
  const int status = pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

std::filesystem::path attnlab_cli() {
#ifdef ATTNLAB_CLI_EXE
  return ATTNLAB_CLI_EXE;
#else
  return {};
#endif
}

bool live_runs_possible(const std::filesystem::path& cli) {
  std::error_code ec;
  return !cli.empty() && std::filesystem::exists(cli, ec) && std::filesystem::exists("/dev/nvidiactl", ec);
}

RunFolder::RunFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "attnlab-gui-live-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  path_ = pattern;
}

RunFolder::~RunFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // its own folder: nothing else was ever written there
}

void start_live_run(LiveRun& run, const Scenario& scenario, const std::filesystem::path& cli) {
  if (run.running()) return;
  static int runs = 0;
  std::filesystem::path toml, csv;
  try {
    run.folder = std::make_unique<RunFolder>();
    toml = run.folder->path() / (scenario.name + ".toml");
    csv = run.folder->path() / (scenario.name + "-" + std::to_string(++runs) + ".csv");
    save_scenario(scenario, toml);
  } catch (const std::exception& e) {
    run.folder.reset();
    run.status = std::string("cannot save the scenario for the run: ") + e.what();
    return;
  }
  const std::string command =
      shell_quoted(cli.string()) + " run " + shell_quoted(toml.string()) + " --out " + shell_quoted(csv.string());
  run.status = "running " + scenario.name + " on the GPU...";
  run.pending = std::async(std::launch::async, run_cli, command, csv);
}

void collect_live_run(LiveRun& run, ResultsState& results) {
  if (!run.running() || run.pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  const LiveRunOutcome outcome = run.pending.get();
  if (outcome.exit_code != 0) {
    run.status = "the live run failed (exit " + std::to_string(outcome.exit_code) + "): " + last_line(outcome.output);
  } else {
    const std::size_t before = total_rows(results.loaded());
    results.load(outcome.csv);  // the rows are kept in memory: the file may go
    run.status = "the live run added " + std::to_string(total_rows(results.loaded()) - before) + " rows of " +
                 outcome.csv.filename().string();
  }
  run.folder.reset();
}

}  // namespace attnlab::gui
