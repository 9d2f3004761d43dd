#pragma once
// The Story's words: one paragraph per step (gui/app/story_steps.hpp), every figure in it
// taken from the model of the step's scenario and from the loaded results, never typed in.
// Plain strings, so the tests read what the Story says.
#include <array>
#include <string>

#include "analysis/step_times.hpp"
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// The paragraph of `step` for the state's scenario (the step's, once opened).
std::string story_paragraph(AppState& state, int step);

// Attention's share of the training step three ways, each with what it counts: nanochat's
// FLOPs (full squares), the FLOPs as computed (causal, tiled), and the measured forward time
// (per kernel family). The Training step view and the Story say it alike.
std::string attention_shares_text(const TrainingStep& step, const std::array<StepTimePrediction, 2>& times);

}  // namespace attnlab::gui
