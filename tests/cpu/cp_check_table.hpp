#pragma once
// `attnlab cp --check` from a test: scenarios of uniform documents written for it, and the
// check table's rows read back.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cpu/cli_run.hpp"

namespace attnlab::cli_run {

// The check table's rows: strategy, exchange, rel L2, LSE error, blocks used, skipped, K/V in, needed, = model.
inline std::vector<std::vector<std::string>> check_rows(const std::string& out) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split(out, '\n')) {
    std::vector<std::string> cells;
    for (const std::string& cell : split(line, ' '))
      if (!cell.empty()) cells.push_back(cell);
    if (cells.size() == 9 && (cells[1] == "ring" || cells[1] == "all-gather")) rows.push_back(cells);
  }
  return rows;
}

// A scenario of `documents` uniform documents of `length` tokens, one head of 8, with a window's
// left side (none where negative), quoted for the shell.
inline std::string uniform_scenario(const std::string& name, long long documents, int length, int window = -1) {
  const std::filesystem::path file = scratch_dir() / (name + ".toml");
  std::ofstream(file) << "why = \"CP check bound test.\"\nheads = 1\nhead_dim = 8\ndtype = \"bf16\"\ncausal = true\n"
                      << (window >= 0 ? "window = " + std::to_string(window) + "\n" : "") << "row_len = " << length
                      << "\n[documents]\nsource = \"uniform\"\ncount = " << documents << "\nlength = " << length
                      << "\n";
  return "'" + file.string() + "'";
}

}  // namespace attnlab::cli_run
