#pragma once
// The Costs view's backward pass in words, every figure taken from the one model
// (core/cost/backward_cost.hpp, through ScenarioModel::backward): what naive keeps for the
// backward against flash, and what the backward's FLOPs are made of. Plain strings,
// so the tests read what the view prints.
#include <string>

#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {

// Naive keeps S, P, dP and dS, flash the log-sum-exp, Delta and its dQ accumulator:
// both figures, what they hold, and naive's over flash's.
std::string backward_memory_callout(const ScenarioModel& model);

// Flash's matrix products per score against the forward's two, its FLOPs over the
// forward's and the scores it recomputes; naive's the same, from the P it kept.
std::string backward_flops_text(const ScenarioModel& model);

}  // namespace attnlab::gui
