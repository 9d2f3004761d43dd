#pragma once
// Which rank of a context-parallel plan (core/context_parallel.hpp) holds each query of
// the varlen batch: what the Context parallel view colours the mask by.
#include <vector>

#include "core/context_parallel.hpp"

namespace attnlab::gui {

class CpRanks {
 public:
  CpRanks(const CpPlan& plan, const std::vector<int>& doc_lengths);
  // The rank holding position `q` of document `doc`; -1 where none does (outside the document).
  int rank_of(int doc, int q) const;

 private:
  std::vector<std::vector<int>> rank_;  // [document][position]
};

}  // namespace attnlab::gui
