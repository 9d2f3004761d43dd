#include "tests/gpu/gpu_test_support.hpp"

#include <algorithm>

namespace attnlab::test {

bool has_gpu() {
  try {
    query_gpu();
    return true;
  } catch (const NoGpuError&) {
    return false;
  }
}

FlashKernel test_kernel() { return choose_flash_kernel("", query_gpu().compute_capability); }

double rel_l2_bound(DType dtype) { return dtype == DType::bf16 ? 1e-2 : 2e-3; }

RunCheck run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                       std::uint64_t seed) {
  std::int64_t canonical_tokens = 0;
  for (std::int64_t s : layout.token_source) canonical_tokens = std::max(canonical_tokens, s + 1);
  RunInputs inputs(canonical_tokens, problem, seed, RunInputs::Coverage::everything);
  AttentionRun run(layout, implementation, problem, test_kernel());
  return run.check(inputs);
}

}  // namespace attnlab::test
