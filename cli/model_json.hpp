#pragma once
// `attnlab model SCENARIO --format json`: the scenario as attnlab's loader resolves
// it, as one JSON object, so the Python package (attnlab/) runs the very documents,
// packed rows and result columns the C++ side uses, with no second copy of the loader,
// the length generators or the packing; and reads the peer families and, given the
// ceilings, the scenario's floor (analysis/roofline.hpp) from here rather than
// computing them again. Needs no GPU.
#include <optional>

#include "analysis/ceilings.hpp"
#include "core/cost/cost_model.hpp"

namespace attnlab::cli {

// `model` must be the scenario's, built from the same `packed` layout; without `ceilings`
// the JSON's "ceilings" and "floor" are null.
void print_model_json(const Scenario& s, const Layout& packed, const CostModel& model,
                      const std::optional<Ceilings>& ceilings);

}  // namespace attnlab::cli
