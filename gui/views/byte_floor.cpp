#include "gui/views/byte_floor.hpp"

#include <cstdio>

#include "analysis/number_format.hpp"

namespace attnlab::gui {

std::vector<ByteFloor> byte_floors(const ScenarioModel& model, const Ceilings& ceilings) {
  const Scenario& s = model.scenario;
  std::vector<ByteFloor> floors;
  for (Implementation i : {Implementation::packed, Implementation::varlen}) {
    const double flops = double(model.costs[i].flops_fwd);
    const double bytes =
        double(least_bytes(model.layout_of(i).buffer_tokens(), s.heads, s.kv_heads, s.head_dim, s.dtype, Pass::fwd));
    floors.push_back({i, flops, bytes, time_floor(flops, bytes, ceilings)});
  }
  return floors;
}

std::string byte_floor_text(const ScenarioModel& model, const Ceilings& ceilings) {
  const std::vector<ByteFloor> floors = byte_floors(model, ceilings);
  const auto said = [&](const ByteFloor& f) {
    return std::string(implementation_name(f.implementation)) + " computes " + format_count(f.flops) +
           "FLOP over at least " + format_bytes(f.bytes) +
           " of Q, K, V and O: " + format_count(f.floor.flops_per_byte) + " FLOPs per byte, " +
           (f.floor.memory_bound() ? "under" : "over") + " the ridge, so " +
           (f.floor.memory_bound() ? "memory-bound" : "compute-bound") + ": at least " + format_us(f.floor.us()) +
           " (" + format_us(f.floor.flops_us) + " by its FLOPs, " + format_us(f.floor.bytes_us) + " by its bytes)";
  };
  const ByteFloor &packed = floors[0], &varlen = floors[1];
  char ridge[32];
  std::snprintf(ridge, sizeof ridge, "%.0f", ceilings.ridge());
  return "Two perfect kernels, at the measured roofs (ridge at " + std::string(ridge) +
         " FLOPs per byte): " + said(varlen) + "; " + said(packed) + ". Their times differ by " +
         format_ratio(packed.floor.us() / varlen.floor.us()) + ", not the " +
         format_ratio(model.costs[Implementation::packed].computed_vs_varlen) + " of the scores" +
         (varlen.floor.memory_bound() && !packed.floor.memory_bound()
              ? ": varlen's short documents cannot go faster than their bytes."
              : ".");
}

}  // namespace attnlab::gui
