#pragma once
// Attention's share of the training step, every way the GUI states it, in one small table that
// says which is which: of FLOPs or of time, of the whole step or of the forward only, of packed
// or of varlen, counted as nanochat counts (full squares), as computed (causal, tiled), predicted
// from the bench rows, or measured by the profiler in a whole step. Each row is taken from the
// code that computes the figure where it is shown (core/cost/training_step.hpp, analysis/step_times.hpp,
// analysis/measured_step.hpp), never typed in.
#include <string>
#include <vector>

#include "gui/views/step_figures.hpp"

namespace attnlab::gui {

struct AttentionShare {
  double share = 0;     // a fraction
  std::string of;       // "FLOPs" or "time"
  std::string part;     // "the step (fwd + bwd)" or "the forward"
  std::string layout;   // "packed" or "varlen"
  std::string counted;  // "nanochat's full squares", "computed: causal, 64x64 tiles", "predicted: ...", "measured"
  std::string source;   // whose kernels, and the files
};

// FLOPs (full squares, computed), then each family's forward time, then each measured step's packed and varlen.
std::vector<AttentionShare> attention_shares(const StepFigures& f);

// The table, one row per share.
void show_attention_shares(const std::vector<AttentionShare>& shares);

}  // namespace attnlab::gui
