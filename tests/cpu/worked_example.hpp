#pragma once
// The cost model's worked example (core/cost/README.md): documents of 3 and 5 tokens,
// causal, head_dim 2, bf16, rows of 8; the forward's and the backward's hand counts use it.
#include "core/scenario/scenario.hpp"

namespace attnlab {

inline Scenario two_documents(int heads = 1, int kv_heads = 1) {
  Scenario s;
  s.name = "two-documents";
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.head_dim = 2;
  s.dtype = DType::bf16;
  s.causal = true;
  s.row_len = 8;
  s.length_source = ListLengths{{3, 5}};
  s.resolve();
  return s;
}

}  // namespace attnlab
