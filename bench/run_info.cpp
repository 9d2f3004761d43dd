#include "bench/run_info.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace attnlab::bench {

namespace {

std::string source_tree_commit() {
  if (const char* env = std::getenv("ATTNLAB_COMMIT"); env && *env) return env;
  FILE* git = popen("git -C '" ATTNLAB_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null", "r");
  if (!git) return "";
  std::array<char, 64> line{};
  std::string commit = std::fgets(line.data(), line.size(), git) ? line.data() : "";
  pclose(git);
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
  return commit;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

}  // namespace

RunInfo describe_run(const GpuInfo& gpu) {
  return {gpu.name, gpu.driver, cuda_version_string(gpu.runtime_version), source_tree_commit(), utc_now_iso8601()};
}

}  // namespace attnlab::bench
