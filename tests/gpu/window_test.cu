// Sliding windows on the GPU: every implementation against the fp64 reference of
// the same windowed layout (awkward lengths, both dtypes and head dims, GQA),
// for windows smaller than a tile, equal to one, spanning several, larger than
// every document; and the kernel's counts equal the model's.
#include <cstdio>
#include <ostream>
#include <string>

#include "core/cost/cost_model.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

struct WindowConfig {
  DType dtype;
  int head_dim;
  bool causal;
  Window window;
};

void PrintTo(const WindowConfig& c, std::ostream* os) {
  *os << dtype_name(c.dtype) << ", head dim " << c.head_dim << (c.causal ? ", causal" : ", not causal") << ", window ("
      << c.window.left << ", " << c.window.right << ")";
}

std::string window_config_name(const ::testing::TestParamInfo<WindowConfig>& info) {
  const WindowConfig& c = info.param;
  return std::string(dtype_name(c.dtype)) + "_d" + std::to_string(c.head_dim) + (c.causal ? "_causal" : "_full") +
         "_w" + std::to_string(c.window.left) + "_" + std::to_string(c.window.right);
}

std::vector<int> awkward_lengths() {
  std::vector<int> lengths{1, 2, 63, 64, 65, 511, 513, 1500};
  lengths.insert(lengths.begin() + 3, 8, 1);
  return lengths;
}

class WindowAccuracy : public ::testing::TestWithParam<WindowConfig> {
 protected:
  AttentionProblem problem() const { return grouped_query_problem(GetParam().dtype, GetParam().head_dim); }

  void expect_close(Implementation impl, const Layout& layout, std::uint64_t seed, FlashKernel kernel) {
    const RunCheck run = run_and_check(impl, layout, problem(), seed, kernel);
    std::printf("  %-10s %-6s %-6s window (%d, %d)  rel_l2 %.3e  max_abs %.3e\n",
                materializes_scores(impl) ? naive_kernel_name : flash_kernel_info(kernel).name,
                implementation_name(impl), layout_kind_name(layout.kind), layout.window.left, layout.window.right,
                run.error.rel_l2, run.error.max_abs);
    EXPECT_GT(run.error.values, 0);
    EXPECT_EQ(run.written.unwritten, 0);
    EXPECT_EQ(run.written.padding_not_zero, 0);
    EXPECT_LT(run.error.rel_l2, rel_l2_bound(problem().dtype)) << implementation_name(impl);
  }
};

TEST_P(WindowAccuracy, EveryImplementationMatchesItsReference) {
  ATTNLAB_REQUIRE_GPU();
  const WindowConfig& c = GetParam();
  const auto lengths = awkward_lengths();
  for (FlashKernel kernel : test_kernels()) {
    SCOPED_TRACE(flash_kernel_info(kernel).name);
    expect_close(Implementation::varlen, make_varlen_layout(lengths, c.causal, c.window), 21, kernel);
    expect_close(Implementation::padded, make_padded_layout(lengths, 1500, c.causal, c.window), 22, kernel);
    expect_close(Implementation::packed,
                 make_packed_layout(lengths, 1000, PackingPolicy::concatenate, c.causal, c.window), 23, kernel);
  }
  expect_close(Implementation::naive, make_padded_layout(lengths, 1500, c.causal, c.window), 24, test_kernel());
}

// Causal windows below a tile (5), of one tile (64), of several (200), beyond every
// document (4096); non-causal windows on both sides.
INSTANTIATE_TEST_SUITE_P(
    Windows, WindowAccuracy,
    ::testing::Values(WindowConfig{DType::bf16, 128, true, {5, 0}}, WindowConfig{DType::bf16, 128, true, {64, 0}},
                      WindowConfig{DType::fp16, 64, true, {200, 0}}, WindowConfig{DType::bf16, 64, true, {4096, 0}},
                      WindowConfig{DType::fp16, 128, false, {30, 70}}, WindowConfig{DType::bf16, 64, false, {0, 128}}),
    window_config_name);

TEST(WindowCounts, KernelCountsEqualTheModel) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 3;
  p.kv_heads = 1;
  p.head_dim = 64;
  for (Window w : {Window{5, 0}, Window{64, 0}, Window{512, 0}}) {
    const auto lengths = awkward_lengths();
    for (const Layout& layout : {make_varlen_layout(lengths, true, w), make_padded_layout(lengths, 1600, true, w),
                                 make_packed_layout(lengths, 777, PackingPolicy::concatenate, true, w)})
      for (FlashKernel kernel : test_kernels()) {
        SCOPED_TRACE(flash_kernel_info(kernel).name);
        const KernelCounts counted = count_on_gpu(layout, p, kernel);
        const TileShape tile = kernel_tile(kernel);
        EXPECT_EQ(counted.cells, count_layout(layout, tile).times(p.heads)) << layout_kind_name(layout.kind);
        EXPECT_EQ(counted.finite_scores, count_layout(layout, tile).times(p.heads).attended());
        EXPECT_EQ(counted.visited_tiles, p.heads * count_layout_by_query_tile(layout, tile).tiles_visited);
      }
  }
}

}  // namespace
}  // namespace attnlab::test
