#include "gui/views/cp_ranks.hpp"

namespace attnlab::gui {

CpRanks::CpRanks(const CpPlan& plan, const std::vector<int>& doc_lengths) {
  rank_.resize(doc_lengths.size());
  for (std::size_t d = 0; d < doc_lengths.size(); ++d) rank_[d].assign(std::size_t(doc_lengths[d]), -1);
  for (int r = 0; r < plan.ranks(); ++r)
    for (const CpPiece& piece : plan.pieces[r])
      for (int q = piece.first; q < piece.end; ++q) rank_[std::size_t(piece.doc)][std::size_t(q)] = r;
}

int CpRanks::rank_of(int doc, int q) const {
  if (doc < 0 || doc >= int(rank_.size()) || q < 0 || q >= int(rank_[doc].size())) return -1;
  return rank_[doc][q];
}

}  // namespace attnlab::gui
