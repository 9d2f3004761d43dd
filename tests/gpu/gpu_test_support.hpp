#pragma once
// Shared by the GPU tests: skipping without a GPU, the kernel to test, and
// checking one implementation over a layout on fresh random inputs against the
// fp64 reference (through AttentionRun, as `attnlab run` checks it).
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/attention_run.hpp"

namespace attnlab::test {

bool has_gpu();

// Skips the calling test where no CUDA GPU is usable (CI), so the suite stays green there.
#define ATTNLAB_REQUIRE_GPU() \
  if (!::attnlab::test::has_gpu()) GTEST_SKIP() << "no CUDA GPU"

// The flash kernel a plain `attnlab run` takes on this GPU: the fastest it runs.
FlashKernel test_kernel();

// Seeded random Q, K, V (rounded to the dtype) in canonical order, gathered into
// `layout` on the device; poisoned O and LSE; one pass of `implementation`; every
// output compared with reference_materialized over the whole layout.
RunCheck run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                       std::uint64_t seed);

// The bound each dtype's relative L2 error must stay under (measured errors are
// far below: the test output prints them).
double rel_l2_bound(DType dtype);

}  // namespace attnlab::test
