// Every rung of the Hopper forward kernel's ladder (--kernel wgmma-sm90/rungN;
// kernels/wgmma_sm90/rungs.hpp) against the fp64 reference on awkward varlen documents,
// bf16 d128, causal and not: each leaves ideas out, and with them the buffers, stages
// and barrier phases they need, so each must still compute the same attention and count.
#include <cstdio>
#include <string>
#include <tuple>

#include "core/io/input_error.hpp"
#include "kernels/kernel_choice.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

using wgmma_sm90::forward_rung_count;

// The kernel of rung `rung` (from 1): wgmma-sm90/rungN.
FlashKernel rung_kernel(int rung) { return parse_flash_kernel("wgmma-sm90/rung" + std::to_string(rung)); }

AttentionProblem ladder_problem(DType dtype = DType::bf16) {
  AttentionProblem p;
  p.dtype = dtype;
  p.heads = 4;
  p.kv_heads = 2;  // grouped-query, as the accuracy tests
  p.head_dim = wgmma_sm90::ladder_head_dim;
  return p;
}

class WgmmaLadder : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(WgmmaLadder, RungMatchesReference) {
  ATTNLAB_REQUIRE_KERNEL(FlashKernel::wgmma_sm90);
  const auto [rung, causal] = GetParam();
  const AttentionProblem problem = ladder_problem();
  const RunCheck run = run_and_check(Implementation::varlen, make_varlen_layout(awkward_lengths(), causal), problem,
                                     30 + rung, rung_kernel(rung));
  std::printf("  rung %d %-6s rel_l2 %.3e  max_abs %.3e  lse_max_abs %.3e\n", rung, causal ? "causal" : "full",
              run.error.rel_l2, run.error.max_abs, run.error.lse_max_abs.value_or(-1));
  EXPECT_GT(run.error.values, 0);
  EXPECT_EQ(run.written.unwritten, 0) << "valid outputs left unwritten (still poison) or not finite";
  EXPECT_EQ(run.written.padding_not_zero, 0);
  EXPECT_LT(run.error.rel_l2, rel_l2_bound(problem.dtype));
  ASSERT_TRUE(run.error.lse_max_abs.has_value());
  EXPECT_LT(*run.error.lse_max_abs, 1e-3);
}

// Each rung's counts (tiles, cells, scores left finite) equal the model's.
TEST_P(WgmmaLadder, RungCountsEqualTheModel) {
  ATTNLAB_REQUIRE_KERNEL(FlashKernel::wgmma_sm90);
  const auto [rung, causal] = GetParam();
  for (const Layout& layout : counting_layouts(causal)) count_on_gpu(layout, ladder_problem(), rung_kernel(rung));
}

INSTANTIATE_TEST_SUITE_P(EveryRung, WgmmaLadder,
                         ::testing::Combine(::testing::Range(1, forward_rung_count + 1), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<int, bool>>& test) {
                           return "rung" + std::to_string(std::get<0>(test.param)) +
                                  (std::get<1>(test.param) ? "_causal" : "_full");
                         });

// The rungs are built for bf16 d128 only: another dtype is refused at the launch.
TEST(WgmmaLadderRefusal, Fp16IsRefused) {
  ATTNLAB_REQUIRE_KERNEL(FlashKernel::wgmma_sm90);
  EXPECT_THROW(run_and_check(Implementation::varlen, make_varlen_layout({70, 130}, true), ladder_problem(DType::fp16),
                             40, rung_kernel(1)),
               InputError);
}

}  // namespace
}  // namespace attnlab::test
