#include "kernels/scenario_plan.hpp"

namespace attnlab {

ScenarioLayouts::ScenarioLayouts(const Scenario& s)
    : padded(s.padded_layout()), packed(s.packed_layout()), varlen(s.varlen_layout()) {}

const Layout& ScenarioLayouts::of(LayoutKind kind) const {
  switch (kind) {
    case LayoutKind::padded: return padded;
    case LayoutKind::packed: return packed;
    case LayoutKind::varlen: return varlen;
  }
  return varlen;
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
      model(model_costs(s, layouts->padded, layouts->packed, layouts->varlen, kernel_tile(kernel))) {}

}  // namespace attnlab
