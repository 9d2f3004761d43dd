// README.md's table of the device memory `attnlab run` needs per shipped scenario and
// implementation must be what the cost model says. On a mismatch the test prints the
// block to paste between the README's gpu-memory markers.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario_file.hpp"

namespace attnlab {
namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// Q, K, V, O and LSE of `positions` buffer positions, as AttentionTensors allocates them (kernels/common/device.cu).
double tensor_bytes(const Scenario& s, std::int64_t positions) {
  return double(positions) * ((2.0 * s.heads + 2.0 * s.kv_heads) * s.head_dim * dtype_bytes(s.dtype) + s.heads * 4.0);
}

// What `attnlab run` holds while one implementation runs: the inputs in document order
// (varlen's buffer, uploaded once), the implementation's own buffer when it is another
// layout, and naive's S (fp32) and P (dtype) over every score it computes. The layouts'
// index arrays (a few MB at most) are left out.
double run_bytes(const Scenario& s, const CostModel& m, Implementation impl) {
  const ImplementationCost& c = m[impl];
  double bytes = tensor_bytes(s, m[Implementation::varlen].buffer_tokens);
  if (impl != Implementation::varlen) bytes += tensor_bytes(s, c.buffer_tokens);
  if (materializes_scores(impl)) bytes += double(c.scores_computed()) * (4 + dtype_bytes(s.dtype));
  return bytes;
}

std::string cell(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f%s", bytes / GiB,
                bytes > 24 * GiB   ? " (> 24)"
                : bytes > 16 * GiB ? " (> 16)"
                                   : "");
  return text;
}

std::string memory_table() {
  std::ostringstream out;
  out << "| scenario | naive GiB | padded GiB | packed GiB | varlen GiB |\n|---|---|---|---|---|\n";
  for (const Scenario& s : list_scenarios()) {
    const CostModel m = model_costs(s);
    out << "| `" << s.name << "`";
    for (Implementation impl : all_implementations) out << " | " << cell(run_bytes(s, m, impl));
    out << " |\n";
  }
  return out.str();
}

TEST(GpuMemoryTable, ReadmeTableIsWhatTheCostModelSays) {
  std::ifstream readme(ATTNLAB_SOURCE_DIR "/README.md");
  ASSERT_TRUE(readme) << "cannot read README.md";
  const std::string text((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- gpu-memory:begin -->\n", end = "<!-- gpu-memory:end -->";
  const auto from = text.find(begin), to = text.find(end);
  ASSERT_NE(from, std::string::npos) << "README.md has no " << begin;
  ASSERT_NE(to, std::string::npos) << "README.md has no " << end;
  const std::string expected = memory_table();
  EXPECT_EQ(text.substr(from + begin.size(), to - from - begin.size()), expected) << "paste between the markers:\n"
                                                                                  << expected;
}

}  // namespace
}  // namespace attnlab
