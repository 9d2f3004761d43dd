#pragma once
// naive's row-wise kernels run one warp per query of one (row, head) of a layout
// whose rows share one extent; S, P, dP and dS are [row][head][query][key].
#include <cstdint>

#include "core/layout/layout.hpp"

namespace attnlab {

struct NaiveQuery {
  std::int64_t index;  // of the query's score row among all (row, head, query)
  int row, head, q;
};

// The query this warp owns, false past the last one.
__device__ inline bool warp_query(const LayoutView& lv, int extent, int heads, NaiveQuery& out) {
  out.index = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (out.index >= std::int64_t(lv.num_rows) * heads * extent) return false;
  out.row = static_cast<int>(out.index / (std::int64_t(heads) * extent));
  out.head = static_cast<int>(out.index / extent % heads);
  out.q = static_cast<int>(out.index % extent);
  return true;
}

}  // namespace attnlab
