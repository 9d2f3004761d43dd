#pragma once
// The cost model of the four implementations: scores by cell kind, FLOPs, HBM
// bytes and extra memory, exact (counted from the layouts, not sampled). Every
// formula is written once, in core/cost/README.md; the code follows it section by section.
#include <array>
#include <cstdint>

#include "core/layout/implementation.hpp"
#include "core/scenario/scenario.hpp"
#include "core/scenario/scenario_layouts.hpp"

namespace attnlab {

// One layout counted under one tile shape, per head (README: "Counting").
struct LayoutCount {
  CellCounts cells;                    // scores computed, by cell kind
  std::int64_t tiles_visited = 0;      // (query tile, key tile) pairs
  std::int64_t key_tokens_loaded = 0;  // key positions read, summed over visited pairs, clipped to the row
};

// Sums count_tile once per query tile (one tile as wide as the visited key tiles),
// which equals count_layout's per-tile sum but stays fast for huge padded layouts.
LayoutCount count_layout_by_query_tile(const Layout& layout, TileShape tile);

// HBM traffic of one forward pass, bytes over all heads (README: "HBM bytes").
struct HbmBytes {
  std::int64_t q_read = 0, k_read = 0, v_read = 0, o_written = 0;
  std::int64_t s_written = 0, s_read = 0, p_written = 0, p_read = 0;  // naive only
  std::int64_t lse_written = 0;                                       // flash only
  std::int64_t total() const {
    return q_read + k_read + v_read + o_written + s_written + s_read + p_written + p_read + lse_written;
  }
};

struct ImplementationCost {
  Implementation implementation = Implementation::varlen;
  LayoutKind layout = LayoutKind::varlen;
  TileShape tile;                  // naive: one tile as large as the padded row
  std::int64_t buffer_tokens = 0;  // positions of the layout's buffer, padding included
  std::int64_t tiles_visited = 0;  // all heads
  CellCounts scores;               // all heads, by cell kind; scores.computed() = scores computed

  std::int64_t scores_computed() const { return scores.computed(); }
  std::int64_t scores_useful() const { return scores[CellKind::useful]; }
  // Cells the mask lets through (useful + bleed): the element-level count a 1x1 tile would compute.
  std::int64_t scores_attended() const { return scores.attended(); }

  std::int64_t flops_fwd = 0;         // 4 * head_dim per score computed
  std::int64_t flops_useful_fwd = 0;  // 4 * head_dim per useful score
  HbmBytes hbm;
  std::int64_t extra_memory_bytes = 0;  // device memory beyond Q, K, V, O

  // Relative to varlen (filled in by model_costs).
  double computed_vs_varlen = 0, attended_vs_varlen = 0, hbm_vs_varlen = 0;
  // Useful scores of varlen this layout never computes: a packed row cuts a document's
  // context at its end (concatenate) or crops the document (best_fit). The output is then wrong.
  std::int64_t useful_lost = 0;
};

struct CostModel {
  TileShape tile;  // the flash tile shape used for padded, packed and varlen
  std::array<ImplementationCost, all_implementations.size()> costs;  // in all_implementations order

  const ImplementationCost& operator[](Implementation i) const { return costs[static_cast<int>(i)]; }
};

inline constexpr TileShape default_flash_tile{64, 64};

CostModel model_costs(const Scenario& scenario, TileShape tile = default_flash_tile);
// The same from the scenario's layouts already built, for a caller that keeps them anyway.
CostModel model_costs(const Scenario& scenario, const ScenarioLayouts& layouts, TileShape tile = default_flash_tile);

}  // namespace attnlab
