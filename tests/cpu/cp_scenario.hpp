#pragma once
// A scenario of the given documents, as the context-parallel tests build them.
#include <utility>
#include <vector>

#include "core/scenario/scenario.hpp"

namespace attnlab {

inline Scenario documents(std::vector<int> lengths, int heads = 1, bool causal = true, Window window = {}) {
  Scenario s;
  s.name = "cp-test";
  s.heads = heads;
  s.kv_heads = heads;
  s.head_dim = 64;
  s.causal = causal;
  s.window = window;
  s.row_len = 1 << 20;
  s.length_source = ListLengths{std::move(lengths)};
  s.resolve();
  return s;
}

}  // namespace attnlab
