#pragma once
// Why the measured ratio is smaller than the scores' ratio: two perfect kernels, one
// bound by its FLOPs and one by its bytes. Varlen's short documents hold few FLOPs per
// byte of Q, K, V and O and sit under the ridge (memory-bound); packed computes several
// times the FLOPs on the same bytes (compute-bound). A floor is a lower bound on a time,
// so the floors' ratio is a ratio of two lower bounds, not a prediction of the times':
// what sets each source's measured ratio is how far its packed and its varlen times sit
// above their floors, measured = floors' ratio x (packed's distance) / (varlen's). The
// roofline draws each floor's intensity, the Story and the Timings view say it in words
// and per source; every figure from the one model and the measured ceilings.
#include <string>
#include <vector>

#include "analysis/roofline.hpp"
#include "analysis/source_ratios.hpp"
#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {

struct ByteFloor {
  Implementation implementation = Implementation::varlen;
  double flops = 0, bytes = 0;  // the forward's FLOPs computed; the least bytes over the layout's positions
  TimeFloor floor;
};

// Packed and varlen, forward, in that order, at the model's tile.
std::vector<ByteFloor> byte_floors(const ScenarioModel& model, const Ceilings& ceilings);

// The two floors in words, and their ratio against the scores'.
std::string byte_floor_text(const ScenarioModel& model, const Ceilings& ceilings);

// One source's packed and varlen times against floors of the FLOPs it computes: ours at its
// kernel's tile (its rows' tile column), a peer at the cells the mask lets through (its tile
// is not in its rows; no tile computes fewer, so that floor is the lowest).
struct SourceFloors {
  std::string source;  // "attnlab · wgmma-sm90", "FlashAttention-2"
  std::string basis;   // "128x128 tiles", or "the cells attended"
  ByteFloor packed, varlen;
  double packed_us = 0, varlen_us = 0;

  double packed_above() const { return packed_us / packed.floor.us(); }  // measured / floor
  double varlen_above() const { return varlen_us / varlen.floor.us(); }
  double floors_ratio() const { return packed.floor.us() / varlen.floor.us(); }
  // packed_us / varlen_us, which equals floors_ratio() x packed_above() / varlen_above()
  double measured_ratio() const { return packed_us / varlen_us; }
};

// Every source of `ratios` with a packed and a varlen (or stand-in) run, in their order.
std::vector<SourceFloors> source_floors(const ScenarioModel& model, const std::vector<SourceRatios>& ratios,
                                        const Ceilings& ceilings);

}  // namespace attnlab::gui
