// Every implementation against the fp64 CPU reference on fresh random inputs
// with awkward document lengths, both dtypes, both head dims, causal and not.
#include <cstdio>
#include <string>

#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

class Accuracy : public ::testing::TestWithParam<KernelConfig> {
 protected:
  AttentionProblem problem() const {
    AttentionProblem p;
    p.dtype = GetParam().dtype;
    p.heads = 4;
    p.kv_heads = 2;  // grouped-query: two query heads per KV head
    p.head_dim = GetParam().head_dim;
    return p;
  }

  void expect_close(Implementation impl, const Layout& layout, std::uint64_t seed) {
    const RunCheck run = run_and_check(impl, layout, problem(), seed, GetParam().kernel);
    std::printf("  %-10s %-6s %-6s rows %4d  rel_l2 %.3e  max_abs %.3e  lse_max_abs %.3e\n",
                materializes_scores(impl) ? naive_kernel_name : flash_kernel_info(GetParam().kernel).name,
                implementation_name(impl), layout_kind_name(layout.kind), layout.num_rows(), run.error.rel_l2,
                run.error.max_abs, run.error.lse_max_abs.value_or(-1));
    EXPECT_GT(run.error.values, 0);
    EXPECT_EQ(run.written.unwritten, 0) << "valid outputs left unwritten (still poison) or not finite";
    EXPECT_EQ(run.written.padding_not_zero, 0) << "padding outputs should be O = 0, LSE = -inf";
    EXPECT_LT(run.error.rel_l2, rel_l2_bound(problem().dtype)) << implementation_name(impl);
    ASSERT_TRUE(run.error.lse_max_abs.has_value());
    EXPECT_LT(*run.error.lse_max_abs, 1e-3) << implementation_name(impl);
  }
};

TEST_P(Accuracy, VarlenMatchesReference) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  expect_close(Implementation::varlen, make_varlen_layout(awkward_lengths(), GetParam().causal), 11);
}

TEST_P(Accuracy, PaddedMatchesReference) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  const auto lengths = awkward_lengths();
  expect_close(Implementation::padded, make_padded_layout(lengths, 4097, GetParam().causal), 12);
}

TEST_P(Accuracy, PackedMatchesReferenceWithItsBleed) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  // Rows of 1000: not a multiple of the tile, documents cut across rows.
  expect_close(Implementation::packed,
               make_packed_layout(awkward_lengths(), 1000, PackingPolicy::concatenate, GetParam().causal), 13);
  expect_close(Implementation::packed,
               make_packed_layout(awkward_lengths(), 1000, PackingPolicy::best_fit, GetParam().causal), 14);
}

TEST_P(Accuracy, ManyOneTokenDocuments) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  const std::vector<int> ones(300, 1);
  expect_close(Implementation::varlen, make_varlen_layout(ones, GetParam().causal), 16);
  expect_close(Implementation::packed, make_packed_layout(ones, 128, PackingPolicy::concatenate, GetParam().causal),
               17);
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, Accuracy, ::testing::ValuesIn(forward_kernel_configs()), config_name);

// naive is cuBLAS around a softmax kernel, the same whichever flash kernel is chosen:
// its configurations once, not once per flash kernel.
class NaiveAccuracy : public Accuracy {};

TEST_P(NaiveAccuracy, MatchesReference) {
  ATTNLAB_REQUIRE_GPU();
  expect_close(Implementation::naive, make_padded_layout(awkward_lengths(), 4097, GetParam().causal), 15);
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, NaiveAccuracy, ::testing::ValuesIn(all_kernel_configs()), config_name);

// The same inputs twice give the same bits: no race between warps or CTAs.
TEST(Determinism, FlashGivesTheSameBitsTwice) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 2;
  p.kv_heads = 2;
  const Layout layout = make_packed_layout({700, 90, 1300, 5}, 512, PackingPolicy::concatenate, true);
  for (FlashKernel kernel : test_kernels()) {
    SCOPED_TRACE(flash_kernel_info(kernel).name);
    AttentionRun run(layout, Implementation::packed, p, kernel);
    AttentionTensors& t = run.add_input_set();
    std::vector<float> values(t.q.bytes() / 2);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float((i * 2654435761u) % 1000) / 500.f - 1.f;
    upload_qkv(t, p.dtype, values, values, values);
    run.launch();
    const std::vector<float> first = download_o(t, p.dtype);
    t.o.poison();
    run.launch();
    EXPECT_EQ(first, download_o(t, p.dtype));
  }
}

}  // namespace
}  // namespace attnlab::test
