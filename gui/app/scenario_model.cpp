#include "gui/app/scenario_model.hpp"

#include <exception>
#include <string>

#include "core/io/input_error.hpp"

namespace attnlab::gui {

ScenarioModel build_model(Scenario scenario, TileShape tile, std::uint64_t version) {
  ScenarioModel m{scenario, tile, {}, std::nullopt, document_offsets(scenario.doc_lengths), {}, {}, version};
  try {
    if (scenario.doc_lengths.empty()) throw std::invalid_argument("the scenario has no documents");
    m.layouts.emplace(scenario);
    m.costs = model_costs(scenario, *m.layouts, tile);
    m.backward = model_backward_costs(scenario, m.costs, *m.layouts);
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

const CostModel& ScenarioModel::costs_at(TileShape other) const {
  if (other == tile) return costs;
  auto [at, added] = other_tiles->try_emplace({other.rows, other.cols});
  if (added) at->second = model_costs(scenario, *layouts, other);
  return at->second;
}

void check_fits_gui(const Scenario& s) {
  const std::int64_t docs = static_cast<std::int64_t>(s.doc_lengths.size());
  const std::pair<const char*, std::int64_t> layouts[] = {{"varlen", s.total_tokens()},
                                                          {"padded", docs * s.padded_length()},
                                                          {"packed", s.packed_rows_bound() * s.row_len}};
  for (const auto& [name, positions] : layouts)
    if (positions > max_gui_layout_positions)
      throw InputError((s.name.empty() ? std::string("scenario") : s.name) + ": the " + name + " layout would hold " +
                       std::to_string(positions) + " positions; the GUI draws at most " +
                       std::to_string(max_gui_layout_positions) + " (the CLI has no such limit)");
}

}  // namespace attnlab::gui
