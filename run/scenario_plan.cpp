#include "run/scenario_plan.hpp"

namespace attnlab {

AttentionProblem attention_problem(const Scenario& s) {
  AttentionProblem p;
  p.dtype = s.dtype;
  p.heads = s.heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  return p;
}

namespace {

AttentionProblem validated_problem(const Scenario& s) {
  const AttentionProblem p = attention_problem(s);
  try {
    p.validate();
  } catch (const InputError& e) {
    throw InputError((s.source.empty() ? "scenario " + s.name : s.source.string()) + ": " + e.what());
  }
  return p;
}

}  // namespace

ScenarioPlan::ScenarioPlan(const Scenario& s, FlashKernel kernel_, std::shared_ptr<const ScenarioLayouts> shared)
    : scenario(s),
      kernel(kernel_),
      problem(validated_problem(s)),
      layouts(shared ? std::move(shared) : std::make_shared<const ScenarioLayouts>(s)),
      model(model_costs(s, *layouts, kernel_tile(kernel))) {}

}  // namespace attnlab
