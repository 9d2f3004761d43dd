#pragma once
// The Timings view's roofline: every run's points (analysis/roofline.hpp) under the results
// folder's measured ceilings (ceilings.toml), coloured by implementation, shaped by source
// family, our kernels ringed apart, labelled where a label overlaps nothing.
#include <imgui.h>

#include <optional>
#include <vector>

#include "analysis/ceilings.hpp"
#include "analysis/primary_runs.hpp"
#include "gui/views/byte_floor.hpp"
#include "gui/views/timings/run_names.hpp"

namespace attnlab::gui {

// The plotting area's background: where the markers and their labels are drawn (and clipped).
inline constexpr ImU32 roofline_area_color = IM_COL32(28, 28, 34, 255);

// `min_height`: the plot's least height, in lines (it fills what is left below when that is more).
// Without `ceilings` the points are drawn with no roof. `floors`: the scenario's byte floors
// (byte_floor.hpp), each a line at its FLOPs per byte up to the roof; none where empty.
void show_roofline(const std::vector<MeasuredRun>& runs, const Kernels& kernels,
                   const std::optional<Ceilings>& ceilings, bool labelled, float min_height,
                   const std::vector<ByteFloor>& floors = {});

}  // namespace attnlab::gui
