#pragma once
// Which rank of a context-parallel plan (core/cost/context_parallel.hpp) holds each query of
// the varlen batch: what the Context parallel view colours the mask by. One small entry
// per token, in one array: 2 bytes a token, whatever the number of documents.
#include <cstdint>
#include <vector>

#include "core/cost/context_parallel.hpp"

namespace attnlab::gui {

class CpRanks {
 public:
  // `doc_offsets`: each document's first token, the total at the end (document_offsets).
  CpRanks(const CpPlan& plan, const std::vector<std::int64_t>& doc_offsets);
  // The rank holding position `q` of document `doc`; -1 where none does (outside the document).
  int rank_of(int doc, int q) const;

 private:
  static_assert(max_cp_ranks < 32768, "a rank fits an int16_t");
  std::vector<std::int64_t> offsets_;
  std::vector<std::int16_t> rank_;  // [token], in document order
};

}  // namespace attnlab::gui
