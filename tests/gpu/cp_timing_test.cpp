// run/cp_timing.hpp, what `attnlab cp --run` reports: every rank of every strategy and exchange
// matches the whole varlen run, takes the steps and launches its schedule says, and computes
// in its rounds' tiles what the model counts where no block edge cuts a tile.
#include <string>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "kernels/kernel_choice.hpp"
#include "run/cp_timing.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

// One causal document of 4096 tokens, 4 heads (2 KV heads), head dim 64: over 2 ranks, zigzag's
// chunks of 1024 and contiguous's pieces of 2048 start on tile boundaries of both kernels.
Scenario one_document() {
  Scenario s;
  s.name = "one-doc-4096";
  s.heads = 4;
  s.kv_heads = 2;
  s.head_dim = 64;
  s.doc_lengths = {4096};
  return s;
}

TEST(CpTiming, EveryRankMatchesTheWholeRunAndTheModelsTiles) {
  ATTNLAB_REQUIRE_GPU();
  const Scenario s = one_document();
  const FlashKernel kernel = test_kernel();
  const int ranks = 2;
  std::vector<CpCost> models;
  std::vector<CpPlan> plans;
  for (CpStrategy strategy : all_cp_strategies) {
    models.push_back(model_context_parallel(s, ranks, strategy, kernel_tile(kernel)));
    plans.push_back(models.back().plan);
  }
  const CpTimes times = time_context_parallel(s, plans, kernel, 1, 2, 5);
  EXPECT_GT(times.whole.median_us, 0);
  ASSERT_EQ(times.exchanges.size(), 2 * plans.size());
  for (const CpExchangeTimes& e : times.exchanges) {
    const std::string what = std::string(cp_strategy_name(e.strategy)) + " " + cp_exchange_name(e.exchange);
    const CpCost& model = models[std::size_t(e.strategy)];
    ASSERT_EQ(e.ranks.size(), std::size_t(ranks)) << what;
    for (int r = 0; r < ranks; ++r) {
      const CpRankTime& t = e.ranks[r];
      EXPECT_LT(t.rel_l2, rel_l2_bound(s.dtype)) << what << " rank " << r;
      EXPECT_LT(t.lse_max_abs, 1e-3) << what << " rank " << r;
      EXPECT_EQ(t.scores_computed, model.ranks[r].scores_computed()) << what << " rank " << r;
      EXPECT_EQ(t.compute.reps, 2);
      if (t.steps > 0) {
        EXPECT_GT(t.compute.median_us, 0) << what << " rank " << r;
      }
    }
    // Causal, contiguous: rank 0 attends its own piece alone; rank 1 its own and rank 0's, one
    // step each by ring, one step of two rounds by all-gather. Whole documents: rank 0 holds the
    // document, rank 1 nothing.
    if (e.strategy == CpStrategy::contiguous) {
      EXPECT_EQ(e.ranks[0].steps, 1) << what;
      EXPECT_EQ(e.ranks[1].steps, e.exchange == CpExchange::ring ? 2 : 1) << what;
      EXPECT_EQ(e.ranks[1].launches, 2) << what;
    }
    if (e.strategy == CpStrategy::documents) {
      EXPECT_EQ(e.ranks[0].launches, 1) << what;
      EXPECT_EQ(e.ranks[1].steps, 0) << what;
    }
  }
}

}  // namespace
}  // namespace attnlab::test
