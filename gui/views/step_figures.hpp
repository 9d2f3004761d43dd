#pragma once
// The training step's figures for the state's scenario, made one way for the Training step
// view and the Story: the model's step, its predictions per kernel family (GEMMs at the
// model's shapes where measured, else at the ceiling) and the scenario's measured steps.
#include <array>
#include <string>
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

// The kernel families predicted (f.times) whose step no pair of rows measured on one GPU, by
// label: "attnlab · wgmma-sm90" where only FA2's and cuDNN's steps of these documents ship.
std::vector<std::string> unmeasured_steps(const StepFigures& f);

}  // namespace attnlab::gui
