#pragma once
// The GUI's flash walkthrough: one query tile of one row and head, stepped one
// visited key tile at a time through the same functions reference_tiled runs
// (online_softmax.hpp), with the bytes each algorithm moves to and from HBM.
//
// Bytes, as the cost model counts them (core/cost/README.md, "HBM bytes"): Q, K, V, O
// and P in the inputs' dtype, S and the LSE in fp32.
//  flash: the Q tile once, each loaded K and V tile, and the O tile plus its LSE
//         once the last key tile is done;
//  naive, for the same queries: Q read, K read, S written and read, P written and
//         read (every key column of the row), V read, O written.
// Only positions inside the row count (a short last tile moves fewer bytes).
#include <cstdint>

#include "core/layout/layouts.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/online_softmax.hpp"

namespace attnlab {

class FlashWalkthrough {
 public:
  // Throws std::out_of_range when row, query_tile or head does not exist.
  FlashWalkthrough(const Layout& layout, const AttentionInputs& canonical, double scale, TileShape tile, int row,
                   int query_tile, int head = 0);

  int key_tiles_total() const { return total_key_tiles_; }  // key tiles this query tile visits
  int steps_done() const { return state_.key_tiles_done; }
  bool finished() const { return steps_done() == total_key_tiles_; }
  void step();     // loads the next K/V tile and updates the state; no-op once finished
  void restart();  // back to before the first key tile

  // The key tile loaded by the last step, -1 before the first; its key positions [first, end) in the row.
  int loaded_key_tile() const { return steps_done() == 0 ? -1 : state_.key_tiles.first + steps_done() - 1; }
  int loaded_key_first() const;
  int loaded_key_end() const;

  const QueryTileState& state() const { return state_; }  // running max, sum, last rescale per query
  const Layout& layout() const { return layout_; }
  int row() const { return operands_.row; }
  int query_tile() const { return query_tile_; }
  int head() const { return operands_.head; }
  TileShape tile() const { return tile_; }
  double partial_output(int i, int d) const { return normalized_output(state_, i, d); }
  double lse(int i) const { return log_sum_exp(state_, i); }

  std::int64_t flash_bytes() const;  // moved so far
  std::int64_t naive_bytes() const;  // the whole naive computation for these queries

 private:
  Layout layout_;
  TileShape tile_;
  double scale_;
  int element_bytes_;
  int query_tile_;
  RowHeadOperands operands_;
  int total_key_tiles_;
  QueryTileState state_;
};

}  // namespace attnlab
