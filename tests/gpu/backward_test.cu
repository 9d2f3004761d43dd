// The backward pass (flash and naive) against the fp64 CPU reference: dQ, dK and
// dV each by relative L2, on fresh random inputs and dO with awkward document
// lengths, both dtypes, both head dims, causal and not, GQA; the flash
// backward's counted tiles against the forward's and the model's. The flash
// tests run every flash kernel with a backward that this GPU and build run
// (names ending `_wgmma_sm90` for the Hopper backward, skipped off sm_90).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/scenario/scenario_file.hpp"
#include "kernels/backward.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/reference_backward.hpp"
#include "run/attention_run.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

// Every flash kernel with a backward (kernel_choice.hpp: has_backward), each over its own work list.
std::vector<FlashKernel> backward_kernels_here() {
  std::vector<FlashKernel> kernels;
  for (FlashKernel k : test_kernels())
    if (flash_kernel_info(k).has_backward) kernels.push_back(k);
  return kernels;
}
std::vector<KernelConfig> backward_kernel_configs() {
  std::vector<KernelConfig> configs;
  for (const KernelConfig& c : forward_kernel_configs())
    if (flash_kernel_info(c.kernel).has_backward) configs.push_back(c);
  return configs;
}

// Seeded random Q, K, V and dO (rounded to the dtype) gathered into `layout`; the
// forward, then the backward of the same implementation into poisoned gradients
// (workspace poisoned too), compared with the fp64 reference backward of the same
// layout: AttentionRun::check of a bwd run, as `attnlab run --pass bwd` checks.
struct BackwardRun {
  GradientErrorStats error;
  WrittenOutputs written;
};

BackwardRun run_backward_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                                   std::uint64_t seed, FlashKernel kernel) {
  RunInputs inputs(canonical_tokens(layout), problem, seed, RunInputs::Coverage::everything);
  AttentionRun run(layout, implementation, problem, kernel, Pass::bwd);
  const RunCheck check = run.check(inputs);
  return {*check.gradients, check.written};
}

// The forward's bounds doubled: the backward rounds P and dS to 16 bits for its
// products and sums over more of them (the measured errors are printed).
double gradient_bound(DType dtype) { return 2 * rel_l2_bound(dtype); }

void print_run(const char* what, const Layout& layout, const BackwardRun& run) {
  std::printf("  %-6s %-6s rows %4d  rel_l2 dQ %.3e  dK %.3e  dV %.3e  (worst %s, max abs %.3e)\n", what,
              layout_kind_name(layout.kind), layout.num_rows(), run.error.dq.rel_l2, run.error.dk.rel_l2,
              run.error.dv.rel_l2, run.error.worst_name(), run.error.worst().max_abs);
}

void expect_written(const BackwardRun& run) {
  EXPECT_EQ(run.written.unwritten, 0) << "gradients of valid positions left unwritten (still poison) or not finite";
  EXPECT_EQ(run.written.padding_not_zero, 0) << "gradients of padding positions should be 0";
}

class BackwardTest : public ::testing::TestWithParam<KernelConfig> {
 protected:
  AttentionProblem problem(int heads = 4, int kv_heads = 2) const {  // grouped-query: two query heads per KV head
    AttentionProblem p;
    p.dtype = GetParam().dtype;
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.head_dim = GetParam().head_dim;
    return p;
  }

  void expect_close(Implementation impl, const Layout& layout, std::uint64_t seed) {
    const AttentionProblem p = problem();
    const BackwardRun run = run_backward_and_check(impl, layout, p, seed, GetParam().kernel);
    print_run(implementation_name(impl), layout, run);
    expect_written(run);
    for (const ErrorStats* e : {&run.error.dq, &run.error.dk, &run.error.dv}) EXPECT_GT(e->values, 0);
    EXPECT_LT(run.error.worst().rel_l2, gradient_bound(p.dtype))
        << implementation_name(impl) << ": worst is " << run.error.worst_name();
  }
};

// The flash backward, per kernel; naive's (cuBLAS, whichever flash kernel) once.
class Backward : public BackwardTest {};
class NaiveBackwardAccuracy : public BackwardTest {};

TEST_P(Backward, VarlenMatchesReference) {
  ATTNLAB_REQUIRE_GPU();
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  expect_close(Implementation::varlen, make_varlen_layout(awkward_lengths(), GetParam().causal), 21);
}

TEST_P(Backward, PaddedMatchesReference) {
  ATTNLAB_REQUIRE_GPU();
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  expect_close(Implementation::padded, make_padded_layout(awkward_lengths(), 4097, GetParam().causal), 22);
}

TEST_P(Backward, PackedMatchesReferenceWithItsBleed) {
  ATTNLAB_REQUIRE_GPU();
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  // Rows of 1000: not a multiple of the tile, documents cut across rows.
  expect_close(Implementation::packed,
               make_packed_layout(awkward_lengths(), 1000, PackingPolicy::concatenate, GetParam().causal), 23);
  expect_close(Implementation::packed,
               make_packed_layout(awkward_lengths(), 1000, PackingPolicy::best_fit, GetParam().causal), 24);
}

TEST_P(NaiveBackwardAccuracy, NaiveMatchesReference) {
  ATTNLAB_REQUIRE_GPU();
  expect_close(Implementation::naive, make_padded_layout(awkward_lengths(), 4097, GetParam().causal), 25);
}

// One-token documents attend only themselves: P = 1, so dV = dO up to dV's rounding
// to the dtype, and the reference dQ, dK are 0 (dP − Δ vanishes; their rel L2 is inf):
// the GPU's are rounding noise of dP − Δ in fp32, checked by max abs.
TEST_P(Backward, ManyOneTokenDocuments) {
  ATTNLAB_REQUIRE_GPU();
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  const std::vector<int> ones(300, 1);
  const Layout varlen = make_varlen_layout(ones, GetParam().causal);
  const BackwardRun run = run_backward_and_check(Implementation::varlen, varlen, problem(), 27, GetParam().kernel);
  print_run("varlen", varlen, run);
  expect_written(run);
  EXPECT_LT(run.error.dv.rel_l2, rel_l2_bound(GetParam().dtype));
  EXPECT_LT(run.error.dq.max_abs, 1e-4);
  EXPECT_LT(run.error.dk.max_abs, 1e-4);
  expect_close(Implementation::packed, make_packed_layout(ones, 128, PackingPolicy::concatenate, GetParam().causal),
               28);
}

// Three query heads per KV head (and one KV head for all): dK, dV summed over the group.
TEST_P(Backward, GroupsOfThreeQueryHeads) {
  ATTNLAB_REQUIRE_GPU();
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  for (int kv_heads : {2, 1}) {
    const AttentionProblem p = problem(3 * kv_heads, kv_heads);
    const Layout layout = make_varlen_layout({700, 65, 1, 130}, GetParam().causal);
    const BackwardRun run = run_backward_and_check(Implementation::varlen, layout, p, 29, GetParam().kernel);
    std::printf("  heads %d kv_heads %d:", p.heads, p.kv_heads);
    print_run("varlen", layout, run);
    expect_written(run);
    EXPECT_LT(run.error.worst().rel_l2, gradient_bound(p.dtype)) << run.error.worst_name();
  }
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, Backward, ::testing::ValuesIn(backward_kernel_configs()), config_name);
INSTANTIATE_TEST_SUITE_P(AllConfigs, NaiveBackwardAccuracy, ::testing::ValuesIn(all_kernel_configs()), config_name);

// Small enough for compute-sanitizer (memcheck, racecheck, synccheck, initcheck):
// every backward over the layouts of tests/gpu/sanitizer-small.toml (tile-edge
// lengths, a one-token document, GQA, rows not a multiple of the tile).
TEST(BackwardSmall, EveryImplementationOnTheSanitizerScenario) {
  ATTNLAB_REQUIRE_GPU();
  const Scenario s = load_scenario(ATTNLAB_SOURCE_DIR "/tests/gpu/sanitizer-small.toml");
  const AttentionProblem p = attention_problem(s);
  const ScenarioLayouts layouts(s);
  for (FlashKernel kernel : backward_kernels_here())
    for (Implementation impl :
         {Implementation::naive, Implementation::padded, Implementation::packed, Implementation::varlen}) {
      if (materializes_scores(impl) && kernel != backward_kernels_here().front()) continue;  // naive's once
      const Layout& layout = layouts.of(impl);
      const BackwardRun run = run_backward_and_check(impl, layout, p, 31, kernel);
      std::printf("  %s:", flash_kernel_info(kernel).name);
      print_run(implementation_name(impl), layout, run);
      expect_written(run);
      EXPECT_LT(run.error.worst().rel_l2, gradient_bound(p.dtype))
          << flash_kernel_info(kernel).name << " " << implementation_name(impl) << ": " << run.error.worst_name();
    }
}

// Sliding windows (FlashAttention's window_size): causal windows below a tile,
// of one tile and of several; non-causal windows on both sides. The backward's
// key range of each query and query tiles of each key tile come from the layout.
TEST(BackwardWindows, EveryImplementationMatchesItsReference) {
  ATTNLAB_REQUIRE_GPU();
  const std::vector<int> lengths{1, 2, 1, 1, 1, 63, 64, 65, 511, 513, 1500};
  struct Case {
    DType dtype;
    int head_dim;
    bool causal;
    Window window;
  };
  for (const Case& c : {Case{DType::bf16, 128, true, {5, 0}}, Case{DType::bf16, 64, true, {64, 0}},
                        Case{DType::fp16, 64, true, {200, 0}}, Case{DType::fp16, 128, false, {30, 70}},
                        Case{DType::bf16, 64, false, {0, 128}}}) {
    AttentionProblem p;
    p.dtype = c.dtype;
    p.heads = 4;
    p.kv_heads = 2;
    p.head_dim = c.head_dim;
    const Layout padded = make_padded_layout(lengths, 1500, c.causal, c.window);
    for (FlashKernel kernel : backward_kernels_here()) {
      for (const auto& [impl, layout] :
           {std::pair{Implementation::varlen, make_varlen_layout(lengths, c.causal, c.window)},
            std::pair{Implementation::padded, padded},
            std::pair{Implementation::packed,
                      make_packed_layout(lengths, 1000, PackingPolicy::concatenate, c.causal, c.window)},
            std::pair{Implementation::naive, padded}}) {
        if (materializes_scores(impl) && kernel != backward_kernels_here().front()) continue;  // naive's once
        const BackwardRun run = run_backward_and_check(impl, layout, p, 30, kernel);
        std::printf("  %s %s d%d %s window (%d, %d):", flash_kernel_info(kernel).name, dtype_name(c.dtype), c.head_dim,
                    c.causal ? "causal" : "full", c.window.left, c.window.right);
        print_run(implementation_name(impl), layout, run);
        expect_written(run);
        EXPECT_LT(run.error.worst().rel_l2, gradient_bound(p.dtype))
            << flash_kernel_info(kernel).name << " " << implementation_name(impl) << " window (" << c.window.left
            << ", " << c.window.right << "): worst is " << run.error.worst_name();
      }
    }
  }
}

// Each flash backward visits exactly its forward's tiles (each head's), walking
// them from the key side, and its count of cells by kind equals the model's at
// its kernel's tile; causal and not, with and without windows.
TEST(BackwardCounts, EqualTheForwardsAndCountLayout) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 3;
  p.kv_heads = 1;
  p.head_dim = 64;
  for (FlashKernel kernel : backward_kernels_here())
    for (bool causal : {true, false})
      for (Window w : {Window{}, Window{5, 0}, Window{100, causal ? 0 : 100}, Window{512, causal ? 0 : 64}})
        for (const Layout& layout : counting_layouts(causal, w)) {
          DeviceLayout device_layout(layout, kernel_tile(kernel));
          AttentionTensors t(layout.buffer_tokens(), p);
          GradientTensors g(layout.buffer_tokens(), p);
          for (DeviceBuffer* b : {&t.q, &t.k, &t.v, &g.d_o}) zero(*b);  // finite scores: the counts see the mask alone
          KernelCounts forward, backward;
          run_flash(kernel, device_layout, p, t, nullptr, &forward);
          run_flash_backward(kernel, device_layout, p, t, g, nullptr, &backward);
          const std::string what = std::string(flash_kernel_info(kernel).name) + " " + layout_kind_name(layout.kind) +
                                   (causal ? " causal" : " full") + " window (" + std::to_string(w.left) + ", " +
                                   std::to_string(w.right) + ")";
          EXPECT_EQ(backward.visited_tiles, forward.visited_tiles) << what;
          EXPECT_EQ(backward.cells, forward.cells) << what;
          EXPECT_EQ(backward.cells, count_layout(layout, kernel_tile(kernel)).times(p.heads)) << what;
          EXPECT_EQ(backward.finite_scores, forward.finite_scores) << what;
          EXPECT_EQ(backward.finite_scores, count_layout(layout, kernel_tile(kernel)).times(p.heads).attended())
              << what;
        }
}

// Two backwards of the same problem: dK and dV with the same bits (summed in registers in a
// fixed order; NaN differs from everything, itself included), dQ within the dtype's rounding
// of the largest value (its sums are added in an order that varies).
void expect_same_gradients(const HostGradients& first, const HostGradients& second) {
  EXPECT_EQ(first.dk, second.dk);
  EXPECT_EQ(first.dv, second.dv);
  ASSERT_EQ(first.dq.size(), second.dq.size());
  float largest = 0.f;
  for (float v : first.dq) largest = std::max(largest, std::abs(v));
  ASSERT_GT(largest, 0.f);
  for (std::size_t i = 0; i < first.dq.size(); ++i)
    ASSERT_LE(std::abs(first.dq[i] - second.dq[i]), 1e-2f * largest) << "dQ value " << i;  // NaN fails too
}

// Lengths repeated `times` times: more work items than an H100 or H200 has SMs, so a
// persistent backward's CTAs take several items each.
std::vector<int> repeated(const std::vector<int>& lengths, int times) {
  std::vector<int> all;
  for (int i = 0; i < times; ++i) all.insert(all.end(), lengths.begin(), lengths.end());
  return all;
}

// A second backward on the workspace of the first, with every gradient, the dQ sums and the
// work counter poisoned between: dK and dV are summed in registers in a fixed order, so they
// come out with the same bits; dQ's sums are cleared by the backward itself and added in an
// order that varies, so every dQ value is written again and agrees to the dtype's rounding.
TEST(BackwardDeterminism, ASecondBackwardWritesTheSameGradients) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 4;
  p.kv_heads = 2;
  const Layout layout =
      make_packed_layout(repeated({700, 90, 1300, 5}, 8), 512, PackingPolicy::concatenate, true);  // 264 items
  const AttentionInputs inputs =
      make_random_inputs(layout.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, 5);
  for (FlashKernel kernel : backward_kernels_here()) {
    SCOPED_TRACE(flash_kernel_info(kernel).name);
    DeviceLayout device_layout(layout, kernel_tile(kernel));
    AttentionTensors t(layout.buffer_tokens(), p);
    upload_qkv(t, p.dtype, inputs.q, inputs.k, inputs.v);
    GradientTensors g(layout.buffer_tokens(), p);
    upload_d_o(g, p.dtype, make_random_grad_output(inputs, 6));
    run_flash(kernel, device_layout, p, t);
    run_flash_backward(kernel, device_layout, p, t, g);
    const HostGradients first = download_gradients(g, p.dtype);
    for (DeviceBuffer* b : {&g.dq, &g.dk, &g.dv, &g.dq_accum, &g.dq_arrivals, &g.work_counter}) b->poison();
    run_flash_backward(kernel, device_layout, p, t, g);
    expect_same_gradients(first, download_gradients(g, p.dtype));
  }
}

// What lies past a row's valid tokens (padding here, the next document in varlen) stays out
// of the gradients: NaN at every padding position of Q, K, V and dO gives the gradients that
// zeros there give, padding's zeros included. Rows of 160 tokens make key tiles and query
// steps that cross the valid end, and a one-token document steps wholly past it.
TEST(BackwardPadding, NaNPastTheValidEndStaysOut) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 4;
  p.kv_heads = 2;
  const Layout layout = make_padded_layout(repeated({65, 1, 160, 100}, 40), 160, true);  // 640 items
  const AttentionInputs inputs =
      make_random_inputs(layout.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, 7);
  const std::vector<float> d_o = make_random_grad_output(inputs, 8);
  const auto padded_with = [&](std::vector<float> values, int heads, float fill) {
    const std::size_t width = std::size_t(heads) * p.head_dim;
    for (std::size_t i = 0; i < layout.token_source.size(); ++i)
      if (layout.token_source[i] < 0) std::fill_n(values.begin() + i * width, width, fill);
    return values;
  };
  for (FlashKernel kernel : backward_kernels_here()) {
    SCOPED_TRACE(flash_kernel_info(kernel).name);
    DeviceLayout device_layout(layout, kernel_tile(kernel));
    const auto gradients_with = [&](float fill) {
      AttentionTensors t(layout.buffer_tokens(), p);
      upload_qkv(t, p.dtype, padded_with(inputs.q, p.heads, fill), padded_with(inputs.k, p.kv_heads, fill),
                 padded_with(inputs.v, p.kv_heads, fill));
      GradientTensors g(layout.buffer_tokens(), p);
      upload_d_o(g, p.dtype, padded_with(d_o, p.heads, fill));
      run_flash(kernel, device_layout, p, t);
      run_flash_backward(kernel, device_layout, p, t, g);
      return download_gradients(g, p.dtype);
    };
    expect_same_gradients(gradients_with(0.f), gradients_with(std::numeric_limits<float>::quiet_NaN()));
  }
}

// Every rung of the Hopper backward's ladder (--kernel wgmma-sm90/bwd-rungN;
// kernels/wgmma_sm90/rungs.hpp), bf16 d128 with two query heads per KV head, against the
// reference on varlen, padded (dQ's bulk reductions add the zero rows past a document
// to the padding) and packed rows with their bleed.
class WgmmaBackwardLadder : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(WgmmaBackwardLadder, RungMatchesReference) {
  ATTNLAB_REQUIRE_KERNEL(FlashKernel::wgmma_sm90);
  const auto [rung, causal] = GetParam();
  const FlashKernel kernel = parse_flash_kernel("wgmma-sm90/bwd-rung" + std::to_string(rung));
  AttentionProblem p;
  p.dtype = DType::bf16;
  p.heads = 4;
  p.kv_heads = 2;
  p.head_dim = wgmma_sm90::ladder_head_dim;
  const std::vector<std::pair<Implementation, Layout>> runs = {
      {Implementation::varlen, make_varlen_layout(awkward_lengths(), causal)},
      {Implementation::padded, make_padded_layout(awkward_lengths(), 4097, causal)},
      {Implementation::packed, make_packed_layout(awkward_lengths(), 1000, PackingPolicy::concatenate, causal)}};
  for (const auto& [implementation, layout] : runs) {
    const BackwardRun run = run_backward_and_check(implementation, layout, p, 60 + rung, kernel);
    print_run(("rung" + std::to_string(rung)).c_str(), layout, run);
    expect_written(run);
    for (const ErrorStats* e : {&run.error.dq, &run.error.dk, &run.error.dv}) EXPECT_GT(e->values, 0);
    EXPECT_LT(run.error.worst().rel_l2, gradient_bound(p.dtype)) << "worst is " << run.error.worst_name();
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRung, WgmmaBackwardLadder,
                         ::testing::Combine(::testing::Range(1, wgmma_sm90::backward_rung_count + 1),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<int, bool>>& test) {
                           return "bwd_rung" + std::to_string(std::get<0>(test.param)) +
                                  (std::get<1>(test.param) ? "_causal" : "_full");
                         });

// naive backward computes its workspace first and refuses, naming bytes needed and free.
TEST(NaiveBackwardMemory, RefusesAWorkspaceLargerThanFreeMemory) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;  // 16 heads, head dim 128: dP and dS of one 300k-token row are about 8.6 TB
  const Layout layout = make_padded_layout({300000}, 300000, true);
  DeviceLayout device_layout(layout, kernel_tile(FlashKernel::mma_sm80));
  const std::size_t needed = naive_backward_workspace_bytes(layout, p);
  EXPECT_EQ(needed, std::size_t(16) * 300000 * 300000 * 6 + std::size_t(2) * 300000 * 16 * 128 * 4);
  try {
    NaiveBackward naive(device_layout, p);
    FAIL() << "expected a refusal";
  } catch (const GpuMemoryError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(std::to_string(needed)), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace attnlab::test
