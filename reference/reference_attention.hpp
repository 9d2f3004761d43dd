#pragma once
// The fp64 CPU reference of attention over any layout, two ways:
//  - reference_materialized: the plain algorithm, per query the score row over the
//    keys it attends (attended_keys), softmax, then P·V;
//  - reference_tiled: the flash algorithm (online softmax over the visited key
//    tiles of each query tile, see online_softmax.hpp).
// A (query, key) cell takes part iff cell_kind says useful or bleed.
// Outputs cover every buffer position of the layout; padding positions and any
// query with no cell taking part get O = 0 and LSE = -inf.
#include <cstdint>
#include <limits>
#include <vector>

#include "core/layout/layouts.hpp"
#include "reference/attention_inputs.hpp"

namespace attnlab {

// Which part to compute: large scenarios are checked on a sample.
struct ReferenceOptions {
  std::vector<int> rows;   // layout rows (documents for padded and varlen); empty = all
  std::vector<int> heads;  // query heads; empty = all
  int threads = 0;         // worker threads over (row, head) pairs; 0 = all hardware threads
};

struct ReferenceOutput {
  std::int64_t positions = 0;  // the layout's buffer positions
  int heads = 0;
  int head_dim = 0;
  std::vector<int> computed_rows;   // sorted layout rows that were computed
  std::vector<int> computed_heads;  // sorted heads that were computed
  std::vector<char> row_computed;   // per layout row: 1 if computed
  // Only what was computed is stored: slot_of_position numbers the positions of
  // computed rows in buffer order (-1 elsewhere), slot_of_head the computed heads.
  // With every row and head computed, o is simply [positions][heads][head_dim].
  std::vector<std::int64_t> slot_of_position;
  std::vector<int> slot_of_head;
  std::vector<double> o;    // [computed positions][computed heads][head_dim]
  std::vector<double> lse;  // [computed positions][computed heads], natural log

  bool computed(std::int64_t pos, int head) const { return slot_of_position[pos] >= 0 && slot_of_head[head] >= 0; }
  std::size_t slot(std::int64_t pos, int head) const {
    return static_cast<std::size_t>(slot_of_position[pos]) * computed_heads.size() + slot_of_head[head];
  }
  // NaN where not computed.
  double o_at(std::int64_t pos, int head, int d) const {
    return computed(pos, head) ? o[slot(pos, head) * head_dim + d] : std::numeric_limits<double>::quiet_NaN();
  }
  double lse_at(std::int64_t pos, int head) const {
    return computed(pos, head) ? lse[slot(pos, head)] : std::numeric_limits<double>::quiet_NaN();
  }
};

// 1 / sqrt(head_dim), the usual softmax scale.
double default_scale(int head_dim);

ReferenceOutput reference_materialized(const Layout& layout, const AttentionInputs& canonical, double scale,
                                       const ReferenceOptions& options = {});
ReferenceOutput reference_tiled(const Layout& layout, const AttentionInputs& canonical, double scale, TileShape tile,
                                const ReferenceOptions& options = {});

}  // namespace attnlab
