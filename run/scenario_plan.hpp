#pragma once
// A scenario made ready to run: its padded, packed and varlen layouts, each built
// once and shared by every implementation (and every dtype and head-dim variant of
// the scenario) that runs over it, and its cost model at the flash kernel's tile.
#include <memory>

#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario.hpp"
#include "core/scenario/scenario_layouts.hpp"
#include "kernels/attention.hpp"
#include "kernels/kernel_choice.hpp"

namespace attnlab {

// The shape a scenario asks for (dtype, heads, KV heads, head dim; the default scale), not yet validated.
AttentionProblem attention_problem(const Scenario& s);

struct ScenarioPlan {
  // `layouts` may be those of another variant of the same documents; built here when null.
  // Throws InputError naming the scenario's file when the kernels do not support its shape.
  ScenarioPlan(const Scenario& s, FlashKernel kernel, std::shared_ptr<const ScenarioLayouts> layouts = nullptr);

  Scenario scenario;
  FlashKernel kernel;
  AttentionProblem problem;  // the scenario's shape, validated (before any layout is built)
  std::shared_ptr<const ScenarioLayouts> layouts;
  CostModel model;  // at kernel_tile(kernel)
};

}  // namespace attnlab
