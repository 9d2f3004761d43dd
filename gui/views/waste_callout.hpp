#pragma once
// The largest waste against varlen in one sentence, from the one model: the Costs view's
// call-out and the Scenario view's summary say it alike, beside tables of the same
// figures. Plain strings, so the tests read what the views print.
#include <string>

#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {

// Padded or packed, whichever computes more scores against varlen (padded on a tie).
Implementation largest_waste(const ScenarioModel& model);

// "packed computes 7.22x the scores of varlen (1.09 G against 151 M) in 64x64 tiles;
// counting only the cells its mask lets through, 7.99x."
std::string waste_sentence(const ScenarioModel& model);

// What packed rows lose where they cut documents longer than a row (or crop them, best
// fit): "Packed loses 84.5% of varlen's useful scores (7.73 G of 9.15 G): ...". Empty where
// packed loses none.
std::string useful_lost_sentence(const ScenarioModel& model);

// The Scenario view's summary: the larger waste's sentence, the other layout's ratio, then
// what packed loses, so long-tail's padded waste never hides that packed's output is wrong.
std::string scenario_summary(const ScenarioModel& model);

}  // namespace attnlab::gui
