#include "core/cost/backward_cost.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/cost/hbm_bytes.hpp"

namespace attnlab {

namespace {

constexpr std::int64_t sum_bytes = 4;  // fp32 sums and Δ

// What a kernel walking key tiles reads per head (README: "Backward"): each key
// tile some query tile visits loads its keys once, and each query tile visiting it
// loads its queries; both clipped to the row.
struct KeySideLoads {
  std::int64_t keys = 0, queries = 0;
};
KeySideLoads key_side_loads(const Layout& layout, TileShape tile) {
  const LayoutView v = layout.view();
  KeySideLoads loads;
  for (int r = 0; r < v.num_rows; ++r) {
    const std::int64_t extent = row_extent(v, r);
    for (int kt = 0; kt < tiles_along(row_extent(v, r), tile.cols); ++kt) {
      const TileRange visiting = query_tiles_visiting(v, tile, r, kt);
      if (visiting.count() == 0) continue;
      loads.keys += std::min<std::int64_t>(tile.cols, extent - std::int64_t(kt) * tile.cols);
      loads.queries += std::min<std::int64_t>(std::int64_t(visiting.end) * tile.rows, extent) -
                       std::int64_t(visiting.first) * tile.rows;
    }
  }
  return loads;
}

double ratio(std::int64_t a, std::int64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

}  // namespace

BackwardCost backward_cost(const Scenario& s, const ImplementationCost& fwd, const Layout& layout,
                           DqAccumulation dq_accumulation) {
  if (layout.kind != fwd.layout || layout.buffer_tokens() != fwd.buffer_tokens)
    throw std::invalid_argument("backward_cost: the layout is not the one the forward was counted on");
  const std::int64_t H = s.heads, Hkv = s.kv_heads, D = s.head_dim, e = dtype_bytes(s.dtype);
  const std::int64_t N = fwd.buffer_tokens, C = fwd.scores_computed();
  const std::int64_t per_head = N * D * e;  // one head's Q (or K, V, O, dO, a gradient) over the buffer
  const std::int64_t sums_per_head = N * D * sum_bytes;
  const std::int64_t delta_bytes = N * sum_bytes * H;

  BackwardCost b;
  b.implementation = fwd.implementation;
  b.tiles_visited = fwd.tiles_visited;
  b.cells = C;
  BackwardHbmBytes& m = b.hbm;
  // Δ = rowsum(dO∘O), one pass before anything else, for every implementation.
  m.o_read = per_head * H;
  m.do_read = per_head * H;
  m.delta_written = delta_bytes;
  m.dq_written = per_head * H;
  m.dk_written = m.dv_written = per_head * Hkv;
  b.workspace_bytes = delta_bytes;

  if (materializes_scores(fwd.implementation)) {
    // From the forward's P: dV = Pᵀ·dO, dP = dO·Vᵀ, dS = P∘(dP − Δ), dQ = dS·K, dK = dSᵀ·Q.
    b.gemms = 4;
    m.p_read = 2 * C * e;           // by the dV product and by dS
    m.do_read += 2 * per_head * H;  // by the dV and dP products
    m.q_read = per_head * H;
    m.k_read = m.v_read = per_head * Hkv;
    m.dp_written = m.dp_read = C * score_bytes;
    m.delta_read = delta_bytes;
    m.ds_written = C * e;
    m.ds_read = 2 * C * e;  // by the dQ and dK products
    // dK, dV summed over a group's heads in fp32: each head's product writes the sums
    // (the group's first) or reads and writes them; one conversion reads them.
    m.sums_written = 2 * sums_per_head * H;
    m.sums_read = 2 * sums_per_head * H;  // H - H_kv heads add to the sums, the conversion reads H_kv
    b.workspace_bytes += C * (score_bytes + e) + 2 * sums_per_head * Hkv;
  } else {
    // Per key tile and kv head: K, V loaded once; per visiting query tile and head of
    // the group: Q, dO, LSE and Δ loaded, P recomputed; dK, dV written once.
    const KeySideLoads loads = key_side_loads(layout, fwd.tile);
    const std::int64_t Ql = loads.queries;
    b.gemms = 5;
    b.scores_recomputed = C;
    m.k_read = m.v_read = loads.keys * D * e * Hkv;
    m.q_read = Ql * D * e * H;
    m.do_read += Ql * D * e * H;
    m.lse_read = Ql * lse_bytes * H;
    m.delta_read = Ql * sum_bytes * H;
    b.dq_accumulation = dq_accumulation;
    if (dq_accumulation == DqAccumulation::atomic_fp32) {
      m.sums_written = sums_per_head * H + Ql * D * sum_bytes * H;  // zeroed, then one atomic add per visit
      m.sums_read = sums_per_head * H;                              // the conversion to the dtype
      b.workspace_bytes += sums_per_head * H;
    } else {
      // dQ's own kernel walks query tiles as the forward does: S and dP recomputed, then dQ.
      b.gemms += 2;
      b.scores_recomputed += C;
      m.q_read += per_head * H;
      m.do_read += per_head * H;
      m.lse_read += N * lse_bytes * H;
      m.delta_read += delta_bytes;
      m.k_read += fwd.hbm.k_read;
      m.v_read += fwd.hbm.v_read;
    }
  }
  b.flops = 2 * D * b.gemms * C;
  b.flops_useful = 10 * D * fwd.scores_useful();
  b.flops_vs_forward = ratio(b.flops, fwd.flops_fwd);
  b.extra_memory_bytes = fwd.extra_memory_bytes + b.workspace_bytes;
  return b;
}

BackwardModel model_backward_costs(const Scenario& s, const CostModel& forward, DqAccumulation dq_accumulation) {
  return model_backward_costs(s, forward, ScenarioLayouts(s), dq_accumulation);
}

BackwardModel model_backward_costs(const Scenario& s, const CostModel& forward, const ScenarioLayouts& layouts,
                                   DqAccumulation dq_accumulation) {
  BackwardModel m;
  for (Implementation i : all_implementations) {
    m[static_cast<int>(i)] = backward_cost(s, forward[i], layouts.of(i), dq_accumulation);
  }
  return m;
}

}  // namespace attnlab
