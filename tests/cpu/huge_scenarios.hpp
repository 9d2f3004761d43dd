#pragma once
// Scenario files that are small to write and large to resolve: 2^24 one-token documents in a
// valid file of under 200 bytes (64 MiB of lengths alone once resolved), for the tests that
// check a command or a view never resolves scenarios it does not need.
#include <filesystem>
#include <fstream>
#include <string>

namespace attnlab {

inline void write_huge_scenario(const std::filesystem::path& file) {
  std::ofstream(file)
      << "why = \"many one-token documents\"\nheads = 1\nhead_dim = 8\ndtype = \"bf16\"\ncausal = true\n"
         "row_len = 256\n[documents]\nsource = \"uniform\"\ncount = 16777216\nlength = 1\n";
}

// A scenarios folder made at `folder`: the shipped nanochat-d24 and `huge` huge scenarios, huge-0 ...
inline void write_step_scenarios(const std::filesystem::path& folder, int huge) {
  std::filesystem::create_directories(folder);
  std::filesystem::copy_file(std::filesystem::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml",
                             folder / "nanochat-d24.toml");
  for (int i = 0; i < huge; ++i) write_huge_scenario(folder / ("huge-" + std::to_string(i) + ".toml"));
}

}  // namespace attnlab
