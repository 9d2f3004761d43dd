#include "gui/app/scenario_model.hpp"

#include <exception>
#include <string>
#include <utility>

#include "core/input_error.hpp"
#include "core/scenario_layouts.hpp"

namespace attnlab::gui {

const Layout& ScenarioModel::layout_of(Implementation i) const {
  switch (attnlab::layout_of(i)) {
    case LayoutKind::padded: return padded;
    case LayoutKind::packed: return packed;
    case LayoutKind::varlen: return varlen;
  }
  return varlen;
}

ScenarioModel build_model(Scenario scenario, TileShape tile, std::uint64_t version) {
  ScenarioModel m{scenario, tile, {}, {}, {}, {}, document_offsets(scenario.doc_lengths), {}, {}, version};
  try {
    if (scenario.doc_lengths.empty()) throw std::invalid_argument("the scenario has no documents");
    ScenarioLayouts layouts(scenario);
    m.costs = model_costs(scenario, layouts, tile);
    m.backward = model_backward_costs(scenario, m.costs, layouts);
    m.padded = std::move(layouts.padded);
    m.packed = std::move(layouts.packed);
    m.varlen = std::move(layouts.varlen);
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

}  // namespace attnlab::gui

namespace attnlab::gui {

void check_fits_gui(const Scenario& s) {
  const std::int64_t docs = static_cast<std::int64_t>(s.doc_lengths.size());
  const std::pair<const char*, std::int64_t> layouts[] = {
      {"varlen", s.total_tokens()}, {"padded", docs * s.padded_length()}, {"packed", s.packed_rows_bound() * s.row_len}};
  for (const auto& [name, positions] : layouts)
    if (positions > max_gui_layout_positions)
      throw InputError((s.name.empty() ? std::string("scenario") : s.name) + ": the " + name + " layout would hold " +
                       std::to_string(positions) + " positions; the GUI draws at most " +
                       std::to_string(max_gui_layout_positions) + " (the CLI has no such limit)");
}

}  // namespace attnlab::gui
