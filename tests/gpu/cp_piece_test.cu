// Context-parallel pieces on the GPU: a rank's query pieces against pieces of K/V through
// each flash kernel (a layout with a query side, core/cost/cp_piece_layouts.hpp), its rounds
// folded into sums by their LSE in the kernels' epilogue (kernels/context_parallel.hpp),
// against the fp64 reference: each step's partial against reference/cp_partial.hpp's of the
// same pieces, and a rank's sums over every step of its exchange against the whole varlen
// forward. Awkward lengths, the three strategies, both exchanges, windows, grouped-query
// attention, both dtypes and head dims; and the runs that refuse sums.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/cost/cp_piece_layouts.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/context_parallel.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/cp_forward.hpp"
#include "reference/cp_partial.hpp"
#include "reference/reference_attention.hpp"
#include "run/cp_timing.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

struct PieceConfig {
  DType dtype;
  int head_dim;
  bool causal;
  Window window;
  FlashKernel kernel;
};

void PrintTo(const PieceConfig& c, std::ostream* os) {
  *os << flash_kernel_info(c.kernel).name << ", " << dtype_name(c.dtype) << ", head dim " << c.head_dim
      << (c.causal ? ", causal" : ", not causal") << ", window (" << c.window.left << ", " << c.window.right << ")";
}

std::string piece_config_name(const ::testing::TestParamInfo<PieceConfig>& info) {
  const PieceConfig& c = info.param;
  std::string kernel = flash_kernel_info(c.kernel).name;
  for (char& ch : kernel)
    if (ch == '-' || ch == '/') ch = '_';
  return kernel + "_" + dtype_name(c.dtype) + "_d" + std::to_string(c.head_dim) + (c.causal ? "_causal" : "_full") +
         (c.window.any() ? "_w" + std::to_string(c.window.left) + "_" + std::to_string(c.window.right) : "");
}

std::vector<PieceConfig> piece_configs() {
  std::vector<PieceConfig> configs;
  for (const FlashKernelInfo& k : flash_kernels)
    if (!is_rung(k)) {
      configs.push_back({DType::bf16, 128, true, {}, k.kernel});
      configs.push_back({DType::fp16, 64, true, {}, k.kernel});
      configs.push_back({DType::bf16, 64, false, {}, k.kernel});
      configs.push_back({DType::fp16, 128, true, {200, 0}, k.kernel});
      configs.push_back({DType::bf16, 128, false, {90, 130}, k.kernel});
    }
  return configs;
}

// Pieces on both sides of a tile and of each other, one document longer than a 128-row tile
// several times over, and runs of one-token documents that leave ranks without a piece.
std::vector<int> piece_lengths() { return {1, 63, 65, 1, 1, 300, 513, 2, 1100, 129}; }

// A buffer of the canonical tokens `source`, each `width` floats of `values`.
std::vector<float> gather(const std::vector<float>& values, const std::vector<std::int64_t>& source, int width) {
  std::vector<float> out;
  out.reserve(source.size() * width);
  for (std::int64_t t : source) out.insert(out.end(), values.begin() + t * width, values.begin() + (t + 1) * width);
  return out;
}

class CpPieces : public ::testing::TestWithParam<PieceConfig> {
 protected:
  AttentionProblem problem() const { return grouped_query_problem(GetParam().dtype, GetParam().head_dim); }
  Layout varlen() const { return make_varlen_layout(piece_lengths(), GetParam().causal, GetParam().window); }
  AttentionInputs inputs(const Layout& l, std::uint64_t seed) const {
    const AttentionProblem p = problem();
    return make_random_inputs(l.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, seed);
  }

  // Uploads the pieces' Q and K/V buffers and adds every round of `pieces` into `sums`.
  void add(CpOutputSums& sums, const CpPieceLayouts& pieces, const AttentionInputs& in, int sm_margin = 0) const {
    const AttentionProblem p = problem();
    const int q_width = p.heads * p.head_dim, kv_width = p.kv_heads * p.head_dim;
    const auto upload = [&](const std::vector<float>& values, std::int64_t positions, int width) {
      DeviceBuffer buffer(std::size_t(positions) * width * dtype_bytes(p.dtype));
      upload_values(buffer, values, p.dtype);
      return buffer;
    };
    const DeviceBuffer q = upload(gather(in.q, pieces.query_source, q_width), pieces.query_tokens, q_width);
    const DeviceBuffer k = upload(gather(in.k, pieces.key_source, kv_width), pieces.key_tokens, kv_width);
    const DeviceBuffer v = upload(gather(in.v, pieces.key_source, kv_width), pieces.key_tokens, kv_width);
    const DeviceCpPieces on_device(pieces, kernel_tile(GetParam().kernel));
    sums.add(GetParam().kernel, on_device, q.data(), k.data(), v.data(), nullptr, sm_margin);
    CUDA_CHECK(cudaDeviceSynchronize());  // before the buffers go
  }
};

// Every (rank, step) of a ring: the rank's queries against the holder's K/V (its own pieces at
// step 0, another rank's shard after), one step's sums against the reference's partial.
TEST_P(CpPieces, EachRingStepMatchesTheReferencePartial) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  const AttentionProblem p = problem();
  const Layout l = varlen();
  const AttentionInputs in = inputs(l, 71);
  const double scale = p.softmax_scale();
  int steps_with_keys = 0;
  for (CpStrategy strategy : all_cp_strategies)
    for (int ranks : {2, 3}) {
      const CpPlan plan = plan_context_parallel(l, ranks, strategy);
      const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
      for (int rank = 0; rank < ranks; ++rank)
        for (const std::vector<int>& step : cp_schedule(CpExchange::ring, rank, ranks)) {
          const int holder = step.front();
          const std::vector<CpPiece> keys = cp_step_keys(plan, shards, rank, step);
          const CpPieceLayouts pieces = cp_piece_layouts(l, plan.pieces[rank], keys);
          CpOutputSums sums(pieces.query_tokens, p);
          add(sums, pieces, in);
          const CpPartial reference = cp_partial_attention(l, in, scale, plan.pieces[rank], keys);
          const CpForwardError e = compare_cp_partials(cp_partial_of(sums, plan.pieces[rank]), reference);
          steps_with_keys +=
              std::any_of(reference.lse.begin(), reference.lse.end(), [](double x) { return std::isfinite(x); });
          EXPECT_LT(e.rel_l2, rel_l2_bound(p.dtype))
              << cp_strategy_name(strategy) << " N=" << ranks << " rank " << rank << " holder " << holder << ", "
              << pieces.rounds.size() << " rounds";
          EXPECT_LT(e.lse_max_abs, 1e-3) << cp_strategy_name(strategy) << " N=" << ranks << " rank " << rank
                                         << " holder " << holder;
        }
    }
  EXPECT_GT(steps_with_keys, 20);
}

// A rank's sums over every step of its exchange are the whole forward's O and LSE for its
// queries, and write() gives them in the dtype.
TEST_P(CpPieces, EveryStepMergedIsTheWholeForward) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  const AttentionProblem p = problem();
  const Layout l = varlen();
  const AttentionInputs in = inputs(l, 72);
  const double scale = p.softmax_scale();
  const ReferenceOutput whole = reference_materialized(l, in, scale);
  for (CpStrategy strategy : all_cp_strategies)
    for (CpExchange exchange : all_cp_exchanges) {
      const int ranks = 4;
      const CpPlan plan = plan_context_parallel(l, ranks, strategy);
      const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
      double worst_rel_l2 = 0, worst_lse = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        CpOutputSums sums(tokens_of(plan.pieces[rank]), p);
        for (const std::vector<int>& step : cp_schedule(exchange, rank, ranks))
          add(sums, cp_piece_layouts(l, plan.pieces[rank], cp_step_keys(plan, shards, rank, step)), in);
        const CpForwardError e = compare_cp_to_whole(l, cp_partial_of(sums, plan.pieces[rank]), whole);
        worst_rel_l2 = std::max(worst_rel_l2, e.rel_l2);
        worst_lse = std::max(worst_lse, e.lse_max_abs);
        // write(): the sums in the dtype, where a whole forward writes O and LSE.
        DeviceBuffer o(std::size_t(sums.queries()) * p.heads * p.head_dim * dtype_bytes(p.dtype));
        DeviceBuffer lse(std::size_t(sums.queries()) * p.heads * sizeof(float));
        o.poison();
        lse.poison();
        sums.write(o.data(), static_cast<float*>(lse.data()));
        const std::vector<float> written = download_values(o, p.dtype), fp32 = sums.download_o();
        const std::vector<float> fp32_lse = sums.download_lse();
        std::vector<float> written_lse(fp32_lse.size());
        lse.download(written_lse.data(), lse.bytes());
        for (std::size_t i = 0; i < fp32.size(); ++i)
          ASSERT_NEAR(written[i], fp32[i], std::abs(fp32[i]) / 128 + 1e-6) << "O value " << i;
        EXPECT_EQ(written_lse, fp32_lse);
      }
      std::printf("  %-10s %-10s %-10s worst rank rel_l2 %.3e  lse_max_abs %.3e\n",
                  flash_kernel_info(GetParam().kernel).name, cp_strategy_name(strategy), cp_exchange_name(exchange),
                  worst_rel_l2, worst_lse);
      EXPECT_LT(worst_rel_l2, rel_l2_bound(p.dtype)) << cp_strategy_name(strategy) << " " << cp_exchange_name(exchange);
      EXPECT_LT(worst_lse, 1e-3) << cp_strategy_name(strategy) << " " << cp_exchange_name(exchange);
    }
}

// An SM margin shrinks the persistent grid (to one SM's CTAs here), not what it computes: each
// work item is still one CTA's, so the sums are the same to the bit.
TEST_P(CpPieces, AnSmMarginChangesTheGridNotTheOutput) {
  ATTNLAB_REQUIRE_KERNEL(GetParam().kernel);
  const AttentionProblem p = problem();
  const Layout l = varlen();
  const AttentionInputs in = inputs(l, 74);
  const CpPlan plan = plan_context_parallel(l, 2, CpStrategy::zigzag);
  const CpPieceLayouts pieces = cp_piece_layouts(l, plan.pieces[1], plan.pieces[0]);
  ASSERT_FALSE(pieces.rounds.empty());
  CpOutputSums all_sms(pieces.query_tokens, p), margin(pieces.query_tokens, p);
  add(all_sms, pieces, in);
  add(margin, pieces, in, 100000);
  EXPECT_EQ(margin.download_o(), all_sms.download_o());
  EXPECT_EQ(margin.download_lse(), all_sms.download_lse());
  EXPECT_THROW(add(margin, pieces, in, -1), std::invalid_argument);
}

// A step's Q, K and V gathered on the device hold the tokens the host gathers.
TEST(CpStepTensors, HoldThePiecesTokens) {
  ATTNLAB_REQUIRE_GPU();
  const AttentionProblem p = grouped_query_problem(DType::bf16, 64);
  const Layout l = make_varlen_layout(piece_lengths(), true);
  const AttentionInputs in = make_random_inputs(l.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, 73);
  AttentionTensors canonical(l.buffer_tokens(), p);
  upload_qkv(canonical, p.dtype, in.q, in.k, in.v);
  const CpPlan plan = plan_context_parallel(l, 3, CpStrategy::zigzag);
  const CpPieceLayouts pieces = cp_piece_layouts(l, plan.pieces[1], cp_shards(plan)[2]);
  const DeviceCpPieces on_device(pieces, kernel_tile(FlashKernel::mma_sm80));
  const CpStepTensors step(on_device, canonical, p);
  EXPECT_EQ(download_values(step.q, p.dtype), gather(in.q, pieces.query_source, p.heads * p.head_dim));
  EXPECT_EQ(download_values(step.k, p.dtype), gather(in.k, pieces.key_source, p.kv_heads * p.head_dim));
  EXPECT_EQ(download_values(step.v, p.dtype), gather(in.v, pieces.key_source, p.kv_heads * p.head_dim));
}

// Folding into sums is the plain forward's: a counting run, and a rung of the Hopper ladder
// built with other features than the shipped ones, store their output and refuse sums
// before launching (the top rung is the shipped kernel, which folds).
TEST(CpOutputSums, OnlyThePlainForwardFolds) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  const Layout l = make_varlen_layout({300, 129}, true);
  AttentionTensors t(l.buffer_tokens(), p);
  DeviceBuffer sums(std::size_t(l.buffer_tokens()) * p.heads * p.head_dim * sizeof(float));
  AttentionViews views(t);
  views.o_sums = static_cast<float*>(sums.data());
  for (const FlashKernelInfo& k : flash_kernels) {
    if (!runs_here(k.kernel) || k.backward_rung > 0) continue;  // a backward rung's forward is the shipped one
    SCOPED_TRACE(k.name);
    const DeviceLayout layout(l, k.tile);
    KernelCounts counts;
    EXPECT_THROW(run_flash(k.kernel, layout, p, views, nullptr, &counts), std::invalid_argument);
    if (!folds_into_sums(k)) EXPECT_THROW(run_flash(k.kernel, layout, p, views), std::invalid_argument);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, CpPieces, ::testing::ValuesIn(piece_configs()), piece_config_name);

}  // namespace
}  // namespace attnlab::test
