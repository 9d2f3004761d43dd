// `attnlab step` over a scenarios and results folder whose name holds an escape code, a bell
// and a line break: every path it prints (its header, the GEMM file, ceilings.toml, a results
// file, a warning) goes through printable(), so none of them reaches the terminal raw.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cpu/cli_run.hpp"

namespace attnlab::cli_run {
namespace {

namespace fs = std::filesystem;

// The folder's name as printable() writes it.
constexpr const char* escaped_name = "s\\x1b[31m\\x07\\nx";

void expect_no_control_bytes(const std::string& args, const std::string& text) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << args << ": " << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << args << ": " << text;
  EXPECT_EQ(text.find("\nx/"), std::string::npos) << args << ": " << text;  // the name's line break, raw
}

// One folder serves as both: nanochat-d24, the shipped ceilings and step rows (under a file
// name of its own with an escape code), a file that is no results CSV, and, when asked, the
// shipped GEMMs at the model's shapes.
fs::path hostile_folder(bool with_gemms) {
  const fs::path parent = scratch_dir() / (with_gemms ? "gemms" : "ceilings");
  fs::remove_all(parent);
  const fs::path folder = parent / "s\x1b[31m\x07\nx";
  fs::create_directories(folder);
  const fs::path source = ATTNLAB_SOURCE_DIR;
  fs::copy_file(source / "scenarios" / "nanochat-d24.toml", folder / "nanochat-d24.toml");
  fs::copy_file(source / "results" / "h100" / "ceilings.toml", folder / "ceilings.toml");
  fs::copy_file(source / "results" / "h100" / "attnlab-step.csv", folder / "step\x1b[31m.csv");
  std::ofstream(folder / "bad.csv") << "scenario,oops\n1,2\n";
  if (with_gemms) {
    fs::create_directories(folder / "gemms");
    fs::copy_file(source / "results" / "h100" / "gemms" / "nanochat-d24.csv", folder / "gemms" / "nanochat-d24.csv");
  }
  return folder;
}

std::string env_for(const fs::path& folder) {
  return "ATTNLAB_SCENARIOS='" + folder.string() + "' ATTNLAB_RESULTS='" + folder.string() + "'";
}

TEST(HostileStep, PathsInItsHeaderAndMessagesArePrintable) {
  for (const bool with_gemms : {true, false}) {
    const fs::path folder = hostile_folder(with_gemms);
    const std::string shown = (folder.parent_path() / escaped_name).string();
    for (const std::string args :
         {"step nanochat-d24 --details", "step nanochat-d24", "step nanochat-d24 --format json"}) {
      const CliRun r = attnlab(args, env_for(folder));
      ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
      expect_no_control_bytes(args, r.out);
      expect_no_control_bytes(args, r.err);
      // The one warning: the file that is no results CSV, named once.
      EXPECT_EQ(r.err, "attnlab: warning: results: " + shown + "/bad.csv: missing column implementation\n") << args;
    }
    const CliRun r = attnlab("step nanochat-d24 --details", env_for(folder));
    EXPECT_NE(r.out.find("scenario     nanochat-d24  (" + shown + "/nanochat-d24.toml)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" (step\\x1b[31m.csv): us per step\n"), std::string::npos) << r.out;  // a measured step
    if (with_gemms) {
      EXPECT_NE(r.out.find("(b) from time, GEMMs measured at the model's shapes, " + shown +
                           "/gemms/nanochat-d24.csv (scenario nanochat-d24)\n"),
                std::string::npos)
          << r.out;
    } else {
      EXPECT_NE(r.out.find("(b) from time, GEMMs at 756 TFLOP/s: "), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(" (" + shown + "/ceilings.toml says where it was measured)\n"), std::string::npos) << r.out;
    }
  }
}

}  // namespace
}  // namespace attnlab::cli_run
