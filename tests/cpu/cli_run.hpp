#pragma once
// Running a built program (attnlab: ATTNLAB_CLI, set by CMake) from a test: its exit
// code, stdout and stderr, each test in a scratch folder of its own.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cpu/test_folder.hpp"

namespace attnlab::cli_run {

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::filesystem::path scratch_dir() {
  const std::filesystem::path dir = test_folder_path("attnlab_cli_");
  std::filesystem::create_directories(dir);
  return dir;
}

// `PROGRAM ARGS` with an optional environment prefix ("ATTNLAB_RESULTS=/nonexistent").
inline CliRun run_program(const std::string& program, const std::string& args, const std::string& env = "") {
  const std::filesystem::path dir = scratch_dir();
  const std::string command =
      env + " '" + program + "' " + args + " >'" + (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
  const int status = std::system(command.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  return r;
}

// `attnlab ARGS`.
inline CliRun attnlab(const std::string& args, const std::string& env = "") {
  return run_program(ATTNLAB_CLI, args, env);
}

inline std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream s(text);
  for (std::string part; std::getline(s, part, sep);) parts.push_back(part);
  return parts;
}

// `attnlab step`'s default output read at a glance: at most 40 lines of at most 120 columns
// (UTF-8 characters, each one column wide here: "µs").
inline void expect_at_a_glance(const std::string& out) {
  const std::vector<std::string> lines = split(out, '\n');
  EXPECT_LE(lines.size(), 40u) << out;
  for (const std::string& line : lines)
    EXPECT_LE(std::count_if(line.begin(), line.end(), [](unsigned char c) { return (c & 0xC0) != 0x80; }), 120) << line;
}

// The line of `attnlab step`'s measured table for one setting ("4 GPUs, Muon, all-reduce after bwd"),
// without the setting; empty where no line names it.
inline std::string measured_line(const std::string& out, const std::string& conditions) {
  for (const std::string& line : split(out, '\n'))
    if (line.rfind(conditions + "  ", 0) == 0) return line.substr(conditions.size());
  return {};
}

// How many backends' savings a measured line holds ("379.7 -> 367.8  3.14%" each).
inline std::size_t measured_savings(const std::string& line) {
  return std::size_t(std::count(line.begin(), line.end(), '%'));
}

}  // namespace attnlab::cli_run
