#pragma once
// Why the measured ratio is smaller than the scores' ratio: two perfect kernels, one
// bound by its FLOPs and one by its bytes. Varlen's short documents hold few FLOPs per
// byte of Q, K, V and O and sit under the ridge (memory-bound); packed computes several
// times the FLOPs on the same bytes (compute-bound). The roofline draws each floor's
// intensity, the Story says it in words; every figure from the one model and ceilings.
#include <string>
#include <vector>

#include "analysis/roofline.hpp"
#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {

struct ByteFloor {
  Implementation implementation = Implementation::varlen;
  double flops = 0, bytes = 0;  // the forward's FLOPs computed; the least bytes over the layout's positions
  TimeFloor floor;
};

// Packed and varlen, forward, in that order.
std::vector<ByteFloor> byte_floors(const ScenarioModel& model, const Ceilings& ceilings);

// The two floors in words, and their ratio against the scores'.
std::string byte_floor_text(const ScenarioModel& model, const Ceilings& ceilings);

}  // namespace attnlab::gui
