#include "gui/views/byte_floor.hpp"

#include <cstdio>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"

namespace attnlab::gui {

namespace {

// The floor of `i` for the FLOPs of `costs` (the model at some tile) over the least bytes of its layout.
ByteFloor floor_of(const ScenarioModel& model, const CostModel& costs, Implementation i, const Ceilings& ceilings) {
  const Scenario& s = model.scenario;
  const double flops = double(costs[i].flops_fwd);
  const double bytes =
      double(least_bytes(model.layout_of(i).buffer_tokens(), s.heads, s.kv_heads, s.head_dim, s.dtype, Pass::fwd));
  return {i, flops, bytes, time_floor(flops, bytes, ceilings)};
}

}  // namespace

std::vector<ByteFloor> byte_floors(const ScenarioModel& model, const Ceilings& ceilings) {
  return {floor_of(model, model.costs, Implementation::packed, ceilings),
          floor_of(model, model.costs, Implementation::varlen, ceilings)};
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
  return "Two perfect kernels in " + tile_name(model.tile) + " tiles, at the measured roofs (ridge at " +
         std::string(ridge) + " FLOPs per byte): " + said(varlen) + "; " + said(packed) + ". The floors' ratio is " +
         format_ratio(packed.floor.us() / varlen.floor.us()) + ", not the " +
         format_ratio(model.costs[Implementation::packed].computed_vs_varlen) + " of the scores" +
         (varlen.floor.memory_bound() && !packed.floor.memory_bound()
              ? ": varlen's short documents cannot go faster than their bytes."
              : ".") +
         " It is a ratio of two lower bounds, not of times: each source's measured ratio is it times how far its "
         "packed time sits above its floor, over how far its varlen time does.";
}

std::vector<SourceFloors> source_floors(const ScenarioModel& model, const std::vector<SourceRatios>& ratios,
                                        const Ceilings& ceilings) {
  std::vector<SourceFloors> out;
  for (const SourceRatios& r : ratios) {
    const MeasuredRun *packed = r.run(Implementation::packed), *varlen = r.varlen();
    if (!packed || !varlen) continue;
    const std::optional<TileShape> tile = r.family->name == ours_family ? r.tile() : std::nullopt;
    // A 1x1 tile computes exactly the cells the mask lets through.
    const CostModel& costs = model.costs_at(tile.value_or(TileShape{1, 1}));
    const Implementation varlen_layout = r.padded_stands_for_varlen ? Implementation::padded : Implementation::varlen;
    out.push_back({r.label(), tile ? tile_name(*tile) + " tiles" : "the cells attended",
                   floor_of(model, costs, Implementation::packed, ceilings),
                   floor_of(model, costs, varlen_layout, ceilings), *packed->primary.row->median_us,
                   *varlen->primary.row->median_us});
  }
  return out;
}

}  // namespace attnlab::gui
