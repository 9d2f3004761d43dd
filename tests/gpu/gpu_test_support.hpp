#pragma once
// Shared by the GPU tests: skipping without a GPU, and running one
// implementation over a layout on fresh random inputs against the fp64 reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "kernels/attention.hpp"
#include "reference/error_metrics.hpp"

namespace attnlab::test {

bool has_gpu();

// Skips the calling test where no CUDA GPU is usable (CI), so the suite stays green there.
#define ATTNLAB_REQUIRE_GPU() \
  if (!::attnlab::test::has_gpu()) GTEST_SKIP() << "no CUDA GPU"

struct CheckedRun {
  ErrorStats error;                  // vs the fp64 reference of the same layout
  std::int64_t unwritten = 0;        // valid (position, head) pairs with a non-finite O or LSE
  std::int64_t padding_not_zero = 0;  // padding (position, head) pairs without O = 0, LSE = -inf
};

// Canonical tokens a layout holds (1 + the largest token_source).
std::int64_t canonical_tokens(const Layout& layout);

// Uploads seeded random Q, K, V (rounded to the dtype) gathered into `layout`,
// poisons O and LSE, runs `implementation` and compares everything written with
// reference_materialized over the same layout.
CheckedRun run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                         std::uint64_t seed);

// The parameter of the suites run over every kernel instantiation: dtype x head dim x causal.
struct KernelConfig {
  DType dtype;
  int head_dim;
  bool causal;
};
std::vector<KernelConfig> all_kernel_configs();  // all 8
// gtest prints parameters in test names; without this it dumps the struct's bytes, padding included.
void PrintTo(const KernelConfig& c, std::ostream* os);
std::string config_name(const ::testing::TestParamInfo<KernelConfig>& info);

// 1 and 2 tokens, both sides of a 64-token tile and of 512, one long document,
// and a run of one-token documents.
std::vector<int> awkward_lengths();

// The bound each dtype's relative L2 error must stay under (measured errors are
// far below: the test output prints them).
double rel_l2_bound(DType dtype);

}  // namespace attnlab::test
