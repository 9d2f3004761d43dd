#pragma once
// The cost model of the backward pass (core/cost/README.md, "Backward"), per
// implementation, from the forward's ImplementationCost: the score cells it
// processes, the scores it recomputes, FLOPs, HBM bytes and extra memory. Exact
// integers, like the forward's model; the formulas are written once, in the README.
#include <array>
#include <cstdint>

#include "core/cost/cost_model.hpp"

namespace attnlab {

// How a flash backward sums dQ, which every key tile a query tile visits adds to.
enum class DqAccumulation {
  atomic_fp32,  // FlashAttention-2's choice and our kernel's: fp32 atomicAdd into a zeroed accumulator, then converted
  separate_pass,  // a second kernel walks query tiles and recomputes S and dP for dQ alone: no atomics, 7 GEMMs not 5
};

inline const char* dq_accumulation_name(DqAccumulation a) {
  return a == DqAccumulation::atomic_fp32 ? "atomic_fp32" : "separate_pass";
}

// HBM traffic of one backward pass, bytes over all heads.
struct BackwardHbmBytes {
  std::int64_t q_read = 0, k_read = 0, v_read = 0, o_read = 0, do_read = 0;
  std::int64_t lse_read = 0;                       // flash: P is recomputed from it
  std::int64_t delta_written = 0, delta_read = 0;  // Δ = rowsum(dO∘O), fp32
  std::int64_t p_read = 0;                         // naive: the forward's P
  std::int64_t dp_written = 0, dp_read = 0;        // naive: dP (fp32)
  std::int64_t ds_written = 0, ds_read = 0;        // naive: dS (dtype)
  std::int64_t sums_written = 0, sums_read = 0;    // fp32 sums: flash's dQ accumulator, naive's dK, dV
  std::int64_t dq_written = 0, dk_written = 0, dv_written = 0;

  std::int64_t total() const {
    return q_read + k_read + v_read + o_read + do_read + lse_read + delta_written + delta_read + p_read + dp_written +
           dp_read + ds_written + ds_read + sums_written + sums_read + dq_written + dk_written + dv_written;
  }
};

struct BackwardCost {
  Implementation implementation = Implementation::varlen;
  DqAccumulation dq_accumulation = DqAccumulation::atomic_fp32;  // flash only
  std::int64_t tiles_visited = 0;                                // the forward's tiles, all heads
  std::int64_t cells = 0;              // score cells given a dP and a dS: the forward's scores computed
  std::int64_t scores_recomputed = 0;  // q·k dot products evaluated again (naive keeps P: none)
  int gemms = 0;                       // matrix products per cell, each 2·D FLOPs
  std::int64_t flops = 0;              // 2·D·gemms per cell
  std::int64_t flops_useful = 0;       // 10·D per useful score, every implementation (2.5 x the forward's useful)
  BackwardHbmBytes hbm;
  std::int64_t workspace_bytes = 0;     // what the backward allocates beyond dO, dQ, dK, dV
  std::int64_t extra_memory_bytes = 0;  // what the forward kept (its extra memory) + the workspace
  double flops_vs_forward = 0;          // flops / the forward's flops
};

using BackwardModel = std::array<BackwardCost, all_implementations.size()>;  // in all_implementations order

// The layout's buffer order must be the one `forward` was counted on (padded for
// naive and padded, packed, varlen), and the scenario the one it was modelled from.
BackwardCost backward_cost(const Scenario& scenario, const ImplementationCost& forward, const Layout& layout,
                           DqAccumulation dq_accumulation = DqAccumulation::atomic_fp32);

BackwardModel model_backward_costs(const Scenario& scenario, const CostModel& forward,
                                   DqAccumulation dq_accumulation = DqAccumulation::atomic_fp32);
// The same from the scenario's layouts already built.
BackwardModel model_backward_costs(const Scenario& scenario, const CostModel& forward, const ScenarioLayouts& layouts,
                                   DqAccumulation dq_accumulation = DqAccumulation::atomic_fp32);

}  // namespace attnlab
