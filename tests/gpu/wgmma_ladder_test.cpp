// Every rung of the Hopper forward kernel's ladder (ATTNLAB_WGMMA_RUNG; kernels/hopper/
// flash_wgmma_rungs.hpp) against the fp64 reference on awkward varlen documents, bf16
// d128, causal and not: each leaves ideas out, and with them the buffers, stages and
// barrier phases they need, so each must still compute the same attention.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <tuple>

#include "core/input_error.hpp"
#include "kernels/hopper/flash_wgmma_rung_variable.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

using hopper::forward_rung_count;
using hopper::wgmma_rung_variable;

// Sets ATTNLAB_WGMMA_RUNG for one scope; its value before comes back after it.
class RungVariable {
 public:
  explicit RungVariable(int rung) {
    if (const char* value = std::getenv(wgmma_rung_variable)) before_ = value;
    setenv(wgmma_rung_variable, std::to_string(rung).c_str(), 1);
  }
  ~RungVariable() { before_ ? setenv(wgmma_rung_variable, before_->c_str(), 1) : unsetenv(wgmma_rung_variable); }
  RungVariable(const RungVariable&) = delete;
  RungVariable& operator=(const RungVariable&) = delete;

 private:
  std::optional<std::string> before_;
};

AttentionProblem ladder_problem(DType dtype = DType::bf16) {
  AttentionProblem p;
  p.dtype = dtype;
  p.heads = 4;
  p.kv_heads = 2;  // grouped-query, as the accuracy tests
  p.head_dim = hopper::ladder_head_dim;
  return p;
}

class WgmmaLadder : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(WgmmaLadder, RungMatchesReference) {
  ATTNLAB_REQUIRE_KERNEL(FlashKernel::wgmma_sm90);
  const auto [rung, causal] = GetParam();
  const RungVariable variable(rung);
  const AttentionProblem problem = ladder_problem();
  const RunCheck run = run_and_check(Implementation::varlen, make_varlen_layout(awkward_lengths(), causal), problem,
                                     30 + rung, FlashKernel::wgmma_sm90);
  std::printf("  rung %d %-6s rel_l2 %.3e  max_abs %.3e  lse_max_abs %.3e\n", rung, causal ? "causal" : "full",
              run.error.rel_l2, run.error.max_abs, run.error.lse_max_abs.value_or(-1));
  EXPECT_GT(run.error.values, 0);
  EXPECT_EQ(run.written.unwritten, 0) << "valid outputs left unwritten (still poison) or not finite";
  EXPECT_EQ(run.written.padding_not_zero, 0);
  EXPECT_LT(run.error.rel_l2, rel_l2_bound(problem.dtype));
  ASSERT_TRUE(run.error.lse_max_abs.has_value());
  EXPECT_LT(*run.error.lse_max_abs, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(EveryRung, WgmmaLadder,
                         ::testing::Combine(::testing::Range(1, forward_rung_count + 1), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<int, bool>>& info) {
                           return "rung" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_causal" : "_full");
                         });

// The rungs are built for bf16 d128 only: another dtype is refused at the launch.
TEST(WgmmaLadderRefusal, Fp16IsRefused) {
  ATTNLAB_REQUIRE_KERNEL(FlashKernel::wgmma_sm90);
  const RungVariable variable(1);
  EXPECT_THROW(run_and_check(Implementation::varlen, make_varlen_layout({70, 130}, true), ladder_problem(DType::fp16),
                             40, FlashKernel::wgmma_sm90),
               InputError);
}

}  // namespace
}  // namespace attnlab::test
