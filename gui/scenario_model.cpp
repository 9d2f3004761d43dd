#include "gui/scenario_model.hpp"

#include <exception>

namespace attnlab::gui {

const Layout& ScenarioModel::layout_of(Implementation i) const {
  switch (attnlab::layout_of(i)) {
    case LayoutKind::padded: return padded;
    case LayoutKind::packed: return packed;
    case LayoutKind::varlen: return varlen;
  }
  return varlen;
}

ScenarioModel build_model(const Scenario& scenario, TileShape tile) {
  ScenarioModel m{scenario, tile, {}, {}, {}, {}, document_offsets(scenario.doc_lengths), {}};
  try {
    if (scenario.doc_lengths.empty()) throw std::invalid_argument("the scenario has no documents");
    m.padded = scenario.padded_layout();
    m.packed = scenario.packed_layout();
    m.varlen = scenario.varlen_layout();
    m.costs = model_costs(scenario, tile);
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

}  // namespace attnlab::gui
