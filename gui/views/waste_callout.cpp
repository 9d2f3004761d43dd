#include "gui/views/waste_callout.hpp"

#include "analysis/number_format.hpp"
#include "core/tile_name.hpp"

namespace attnlab::gui {

Implementation largest_waste(const ScenarioModel& model) {
  const auto& c = model.costs;
  return c[Implementation::packed].computed_vs_varlen > c[Implementation::padded].computed_vs_varlen
             ? Implementation::packed
             : Implementation::padded;
}

std::string waste_sentence(const ScenarioModel& model) {
  const ImplementationCost& worst = model.costs[largest_waste(model)];
  const ImplementationCost& varlen = model.costs[Implementation::varlen];
  return std::string(implementation_name(worst.implementation)) + " computes " +
         format_ratio(worst.computed_vs_varlen) + " the scores of varlen (" +
         format_count(double(worst.scores_computed())) + " against " + format_count(double(varlen.scores_computed())) +
         ") in " + tile_name(model.tile) + " tiles; counting only the cells its mask lets through, " +
         format_ratio(worst.attended_vs_varlen) + ".";
}

}  // namespace attnlab::gui
