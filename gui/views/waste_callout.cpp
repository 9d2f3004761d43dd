#include "gui/views/waste_callout.hpp"

#include <cctype>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"

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

std::string useful_lost_sentence(const ScenarioModel& model) {
  const ImplementationCost& packed = model.costs[Implementation::packed];
  const ImplementationCost& varlen = model.costs[Implementation::varlen];
  if (packed.useful_lost <= 0) return {};
  const bool crops = model.scenario.packing == PackingPolicy::best_fit;
  return "Packed loses " + format_percent(double(packed.useful_lost) / double(varlen.scores_useful())) +
         " of varlen's useful scores (" + format_count(double(packed.useful_lost)) + " of " +
         format_count(double(varlen.scores_useful())) + "): its rows of " + std::to_string(model.scenario.row_len) +
         (crops ? " crop every document longer than a row, and the tokens cropped are never attended."
                : " cut every document longer than a row, and attention across a cut is lost: its output is wrong "
                  "there.");
}

std::string scenario_summary(const ScenarioModel& model) {
  const Implementation worst = largest_waste(model);
  const Implementation other = worst == Implementation::packed ? Implementation::padded : Implementation::packed;
  const ImplementationCost& o = model.costs[other];
  std::string other_name = implementation_name(other);
  other_name[0] = char(std::toupper(static_cast<unsigned char>(other_name[0])));
  std::string text = waste_sentence(model) + " " + other_name + " computes " + format_ratio(o.computed_vs_varlen) +
                     " (" + format_ratio(o.attended_vs_varlen) + " attended).";
  if (const std::string lost = useful_lost_sentence(model); !lost.empty()) text += " " + lost;
  return text;
}

}  // namespace attnlab::gui
