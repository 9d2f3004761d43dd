#include "gui/views/step_figures.hpp"

#include <algorithm>

#include "gui/app/measured_scenario.hpp"

namespace attnlab::gui {

StepFigures step_figures(const AppState& state) {
  StepFigures f;
  f.step = model_training_step(state.scenario, *state.scenario.model, state.tile);
  const MeasuredRuns runs = measured_runs(state);
  const auto tflops =
      state.results.loaded().ceilings ? std::optional(state.results.loaded().ceilings->tflops) : std::nullopt;
  const auto tbps =
      state.results.loaded().ceilings ? std::optional(state.results.loaded().ceilings->tbps) : std::nullopt;
  const std::optional<MeasuredGemms> gemms = gemms_for_step(state.scenario, f.step, state.results.loaded().gemms);
  for (KernelFamily family : all_kernel_families)
    f.times[int(family)] =
        predict_step_time(state.scenario, f.step, family, tflops, gemms, runs, state.our_kernel, tbps);
  f.measured = measured_step_pairs(state.scenario, f.step, state.results.loaded());
  return f;
}

std::vector<std::string> unmeasured_steps(const StepFigures& f) {
  std::vector<std::string> out;
  for (const StepTimePrediction& t : f.times)
    if (std::none_of(f.measured.begin(), f.measured.end(), [&](const MeasuredStepPair& m) {
          return m.gpus == 1 && m.source == measured_step_source(t.family) && m.saving();
        }))
      out.push_back(t.label());
  return out;
}

}  // namespace attnlab::gui
