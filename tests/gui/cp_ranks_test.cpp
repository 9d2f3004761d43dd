// The Context parallel view colours each query by the rank its plan gives it: every token
// of every document on exactly the rank whose piece holds it, as many per rank as the model counts.
#include <gtest/gtest.h>

#include "core/scenario/scenario_file.hpp"
#include "gui/views/cp_ranks.hpp"

namespace attnlab::gui {
namespace {

TEST(CpRanks, EachTokenOnTheRankOfItsPiece) {
  const Scenario s = load_scenario("long-tail");
  for (CpStrategy strategy : all_cp_strategies)
    for (int ranks : {1, 3, 8}) {
      SCOPED_TRACE(std::string(cp_strategy_name(strategy)) + " over " + std::to_string(ranks));
      const CpCost cost = model_context_parallel(s, ranks, strategy);
      const CpRanks rank_of(cost.plan, document_offsets(s.doc_lengths));
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

// 2^16 one-token documents over 1,024 ranks (the shape of issue 37's 3.5 GB view): every token
// found on the rank of its piece, from one array of a token each.
TEST(CpRanks, ManyOneTokenDocuments) {
  Scenario s = load_scenario("uniform-64x512");
  s.length_source = UniformLengths{1 << 16, 1};
  s.row_len = 16;
  s.resolve();
  const CpCost cost = model_context_parallel(s, max_cp_ranks, CpStrategy::zigzag);
  const CpRanks rank_of(cost.plan, document_offsets(s.doc_lengths));
  std::vector<std::int64_t> held(max_cp_ranks, 0);
  for (int d = 0; d < (1 << 16); ++d) {
    const int r = rank_of.rank_of(d, 0);
    ASSERT_GE(r, 0) << d;
    ++held[r];
    ASSERT_EQ(rank_of.rank_of(d, 1), -1);
  }
  for (int r = 0; r < max_cp_ranks; ++r) EXPECT_EQ(held[r], cost.ranks[r].tokens);
}

}  // namespace
}  // namespace attnlab::gui
