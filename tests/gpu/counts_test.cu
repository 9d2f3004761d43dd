// The kernels' own count of the tiles and scores they compute equals the cost
// model exactly, and so does the count of scores their mask leaves finite (the
// model's useful + bleed): for every shipped scenario and for hand-made awkward layouts.
#include <cstdio>

#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

TEST(KernelCounts, EqualTheCostModelForEveryShippedScenario) {
  ATTNLAB_REQUIRE_GPU();
  const std::vector<Scenario> scenarios = list_scenarios();
  ASSERT_FALSE(scenarios.empty());
  for (const Scenario& s : scenarios) {
    AttentionProblem p = attention_problem(s);
    p.head_dim = 64;  // counts do not depend on the head dim; 64 keeps the run short
    const ScenarioLayouts layouts(s);
    for (FlashKernel kernel : test_kernels()) {
      const CostModel model = model_costs(s, kernel_tile(kernel));
      for (Implementation impl : {Implementation::padded, Implementation::packed, Implementation::varlen}) {
        const KernelCounts counted = count_on_gpu(layouts.of(impl), p, kernel);
        const ImplementationCost& expected = model[impl];
        std::printf("  %-10s %-22s %-6s tiles %12lld  scores %15lld  useful %15lld\n", flash_kernel_info(kernel).name,
                    s.name.c_str(), implementation_name(impl), static_cast<long long>(counted.visited_tiles),
                    static_cast<long long>(counted.cells.computed()),
                    static_cast<long long>(counted.cells[CellKind::useful]));
        EXPECT_EQ(counted.visited_tiles, expected.tiles_visited) << s.name << " " << implementation_name(impl);
        EXPECT_EQ(counted.cells, expected.scores) << s.name << " " << implementation_name(impl);
        EXPECT_EQ(counted.finite_scores, expected.scores_attended()) << s.name << " " << implementation_name(impl);
      }
    }
  }
}

TEST(KernelCounts, EqualCountLayoutOnAwkwardLayouts) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 3;
  p.kv_heads = 1;
  p.head_dim = 64;
  for (bool causal : {true, false}) {
    for (const Layout& layout : counting_layouts(causal))
      for (FlashKernel kernel : test_kernels()) {
        SCOPED_TRACE(flash_kernel_info(kernel).name);
        const KernelCounts counted = count_on_gpu(layout, p, kernel);
        const TileShape tile = kernel_tile(kernel);
        const CellCounts expected = count_layout(layout, tile).times(p.heads);
        EXPECT_EQ(counted.cells, expected) << layout_kind_name(layout.kind) << (causal ? " causal" : " full");
        EXPECT_EQ(counted.finite_scores, expected.attended()) << layout_kind_name(layout.kind);
        EXPECT_EQ(counted.visited_tiles, p.heads * count_layout_by_query_tile(layout, tile).tiles_visited)
            << layout_kind_name(layout.kind);
      }
  }
}

// naive computes what it needs first and refuses, naming bytes needed and free.
TEST(NaiveMemory, RefusesAWorkspaceLargerThanFreeMemory) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;  // 16 heads: S and P of one 300k-token row are about 8.6 TB
  const Layout layout = make_padded_layout({300000}, 300000, true);
  const std::size_t needed = naive_workspace_bytes(layout, p);
  EXPECT_EQ(needed, std::size_t(16) * 300000 * 300000 * 6);
  try {
    AttentionRun naive(layout, Implementation::naive, p, test_kernel());
    FAIL() << "expected a refusal";
  } catch (const GpuMemoryError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(std::to_string(needed)), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
}

// A scenario's inputs too big for the GPU are refused before any of them is
// allocated, naming the bytes of all five tensors and the bytes free.
TEST(TensorMemory, RefusesInputsLargerThanFreeMemory) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;                          // 16 heads and KV heads, head dim 128, bf16: 16448 bytes per position
  const std::int64_t positions = 100'000'000;  // about 1.6 TB
  try {
    AttentionTensors tensors(positions, p);
    FAIL() << "expected a refusal";
  } catch (const GpuMemoryError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(std::to_string(positions * 16448)), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace attnlab::test
