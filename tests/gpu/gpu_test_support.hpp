#pragma once
// Shared by the GPU tests: skipping without a GPU, the kernel to test, and
// checking one implementation over a layout on fresh random inputs against the
// fp64 reference (through AttentionRun, as `attnlab run` checks it).
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "run/attention_run.hpp"

namespace attnlab::test {

bool has_gpu();

// Skips the calling test where no CUDA GPU is usable (CI), so the suite stays green there.
#define ATTNLAB_REQUIRE_GPU() \
  if (!::attnlab::test::has_gpu()) GTEST_SKIP() << "no CUDA GPU"

// The flash kernel a plain `attnlab run` takes on this GPU: the fastest it runs.
FlashKernel test_kernel();
// Every flash kernel this GPU and build run (fastest first): the forward tests run each.
std::vector<FlashKernel> test_kernels();
bool runs_here(FlashKernel kernel);

// Skips the calling test where the GPU or the build cannot run `kernel` (wgmma-sm90 off sm_90).
#define ATTNLAB_REQUIRE_KERNEL(kernel)     \
  ATTNLAB_REQUIRE_GPU();                   \
  if (!::attnlab::test::runs_here(kernel)) \
  GTEST_SKIP() << ::attnlab::flash_kernel_info(kernel).name << " does not run on this GPU or build"

// Canonical tokens a layout holds (1 + the largest token_source).
std::int64_t canonical_tokens(const Layout& layout);

// Seeded random Q, K, V (rounded to the dtype) in canonical order, gathered into
// `layout` on the device; poisoned O and LSE; one pass of `implementation` (the flash
// ones with `kernel`); every output compared with reference_materialized over the whole layout.
RunCheck run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                       std::uint64_t seed, FlashKernel kernel);

// The parameter of the suites run over every kernel instantiation: dtype x head dim x causal.
struct KernelConfig {
  DType dtype;
  int head_dim;
  bool causal;
  FlashKernel kernel = FlashKernel::mma_sm80;  // named in the test's name unless the teaching kernel
};
std::vector<KernelConfig> all_kernel_configs();      // all 8, the teaching kernel (the backward's)
std::vector<KernelConfig> forward_kernel_configs();  // all 8 for every flash kernel
// gtest prints parameters in test names; without this it dumps the struct's bytes, padding included.
void PrintTo(const KernelConfig& c, std::ostream* os);
std::string config_name(const ::testing::TestParamInfo<KernelConfig>& info);

// 1 and 2 tokens, both sides of a 64-token tile and of 512, one long document,
// and a run of one-token documents.
std::vector<int> awkward_lengths();

// One counting pass of the tiled `kernel` over `layout` (padded, packed or varlen) on
// poisoned inputs (values do not matter to counts): what it counted. It also expects
// the run's own comparison with the cost model to agree.
// Zero bytes in the whole buffer: inputs whose scores are finite (0), so the counts of
// scores left finite see the mask alone.
void zero(DeviceBuffer& buffer);

KernelCounts count_on_gpu(const Layout& layout, const AttentionProblem& problem, FlashKernel kernel);
// The layouts the counting tests walk: varlen, padded to 4200, packed rows of 777
// (concatenate and best fit) of one awkward set of lengths, under a mask.
std::vector<Layout> counting_layouts(bool causal, Window window = {});

// 4 query heads sharing 2 KV heads (grouped-query) at the dtype and head dim given: the
// problem of the suites that run their own shapes (windows, context-parallel pieces).
AttentionProblem grouped_query_problem(DType dtype, int head_dim);

// The bound each dtype's relative L2 error must stay under (measured errors are
// far below: the test output prints them).
double rel_l2_bound(DType dtype);

}  // namespace attnlab::test
