// The Context parallel view colours each query by the rank its plan gives it: every token
// of every document on exactly the rank whose piece holds it, as many per rank as the model counts.
#include <gtest/gtest.h>

#include "core/scenario_file.hpp"
#include "gui/views/cp_ranks.hpp"

namespace attnlab::gui {
namespace {

TEST(CpRanks, EachTokenOnTheRankOfItsPiece) {
  const Scenario s = load_scenario("long-tail");
  for (CpStrategy strategy : all_cp_strategies)
    for (int ranks : {1, 3, 8}) {
      SCOPED_TRACE(std::string(cp_strategy_name(strategy)) + " over " + std::to_string(ranks));
      const CpCost cost = model_context_parallel(s, ranks, strategy);
      const CpRanks rank_of(cost.plan, s.doc_lengths);
      std::vector<std::int64_t> held(ranks, 0);
      for (std::size_t d = 0; d < s.doc_lengths.size(); ++d)
        for (int q = 0; q < s.doc_lengths[d]; ++q) {
          const int r = rank_of.rank_of(int(d), q);
          ASSERT_GE(r, 0) << d << " " << q;
          ASSERT_LT(r, ranks);
          ++held[r];
        }
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(held[r], cost.ranks[r].tokens);
        for (const CpPiece& piece : cost.plan.pieces[r]) EXPECT_EQ(rank_of.rank_of(piece.doc, piece.first), r);
      }
      EXPECT_EQ(rank_of.rank_of(0, s.doc_lengths[0]), -1);  // past the document's end
    }
}

}  // namespace
}  // namespace attnlab::gui
