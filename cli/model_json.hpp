#pragma once
// `attnlab model SCENARIO --format json`: the scenario as attnlab's loader resolves
// it, as one JSON object, so a script (bench/peers/torch_peers.py) runs the very
// documents, packed rows and result columns the C++ side uses, with no second copy
// of the loader, the length generators or the packing. Needs no GPU.
#include "core/cost/cost_model.hpp"

namespace attnlab::cli {

// `model` must be the scenario's, built from the same `packed` layout.
void print_model_json(const Scenario& s, const Layout& packed, const CostModel& model);

}  // namespace attnlab::cli
