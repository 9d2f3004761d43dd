#pragma once
// The model's rows of the Timings view's "each source's own ratios": what the cost model
// says padded and packed cost against varlen, at the tile of each kernel of ours listed
// beside them, so a kernel's measured ratio stands under the model of its own tiles.
#include <string>
#include <vector>

#include "analysis/source_ratios.hpp"
#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {

struct ModelRatioRow {
  std::string label;              // "model: 128x128 tiles" (scores computed), "model: cells attended"
  std::string varlen;             // varlen's count: "151 M scores"
  double padded = 0, packed = 0;  // against varlen
};

// Cells attended (no tile), then scores computed at each distinct tile of our kernels in
// `ratios` (their rows' tile column), in their order; at the model's own tile where none names one.
std::vector<ModelRatioRow> model_ratio_rows(const ScenarioModel& model, const std::vector<SourceRatios>& ratios);

}  // namespace attnlab::gui
