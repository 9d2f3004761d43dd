#include "gui/views/cp_ranks.hpp"

namespace attnlab::gui {

CpRanks::CpRanks(const CpPlan& plan, const std::vector<std::int64_t>& doc_offsets)
    : offsets_(doc_offsets), rank_(std::size_t(doc_offsets.empty() ? 0 : doc_offsets.back()), -1) {
  for (int r = 0; r < plan.ranks(); ++r)
    for (const CpPiece& piece : plan.pieces[r])
      for (int q = piece.first; q < piece.end; ++q)
        rank_[std::size_t(offsets_[std::size_t(piece.doc)] + q)] = std::int16_t(r);
}

int CpRanks::rank_of(int doc, int q) const {
  if (doc < 0 || doc + 1 >= int(offsets_.size()) || q < 0 || q >= offsets_[doc + 1] - offsets_[doc]) return -1;
  return rank_[std::size_t(offsets_[doc] + q)];
}

}  // namespace attnlab::gui
