#pragma once
// The training step's figures for the state's scenario, made one way for the Training step
// view and the Story: the model's step, its predictions per kernel family (GEMMs at the
// model's shapes where measured, else at the ceiling) and the scenario's measured steps.
#include <array>
#include <vector>

#include "analysis/measured_step.hpp"
#include "analysis/step_times.hpp"
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

struct StepFigures {
  TrainingStep step;
  std::array<StepTimePrediction, 2> times;  // [KernelFamily]
  std::vector<MeasuredStepPair> measured;
};

// The state's scenario must have a [model].
StepFigures step_figures(const AppState& state);

}  // namespace attnlab::gui
