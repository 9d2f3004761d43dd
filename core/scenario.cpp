#include "core/scenario.hpp"

#include <algorithm>
#include <numeric>

namespace attnlab {

int Scenario::padded_length() const {
  if (pad_to) return *pad_to;
  return doc_lengths.empty() ? 0 : *std::max_element(doc_lengths.begin(), doc_lengths.end());
}

std::int64_t Scenario::total_tokens() const {
  return std::accumulate(doc_lengths.begin(), doc_lengths.end(), std::int64_t{0});
}

}  // namespace attnlab
