#pragma once
// The measured training step of a scenario (step rows, pass = step; train/README.md): for each
// attention backend, kernel and GPU count, the packed step set against the varlen step of the
// same tokens with the same optimizer and gradient sync, and where their time went part by part. Only rows of the scenario's own name and
// token count stand for it: a step of other documents is another measurement.
#include <optional>
#include <string>
#include <vector>

#include "analysis/results_files.hpp"
#include "analysis/same_cells.hpp"
#include "core/cost/training_step.hpp"
#include "core/layout/implementation.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

struct MeasuredStepRun {
  StepRow row;
  std::string file;  // the file's name within its results folder
};

struct MeasuredStepPair {
  std::string source;  // torch-step-fa2, torch-step-attnlab, torch-step-cudnn
  std::string kernel;  // attnlab's kernel, else empty
  int gpus = 1;
  StepOptimizer optimizer = StepOptimizer::adamw;
  std::optional<GradientSync> gradient_sync;      // several GPUs only
  std::optional<MeasuredStepRun> packed, varlen;  // the first row of each, in results order

  // The run of `layout` (packed or varlen).
  const std::optional<MeasuredStepRun>& run(Implementation layout) const {
    return layout == Implementation::packed ? packed : varlen;
  }

  // "FA2", "attnlab · wgmma-sm90", "cuDNN"; an unknown source by its name.
  std::string label() const;
  // What the step ran under, whatever the attention: "one GPU, AdamW", "4 GPUs, Muon, all-reduce during bwd".
  std::string conditions() const;
  // The whole setting, as every table and view names a pair: "one GPU, AdamW, FA2",
  // "4 GPUs, Muon, all-reduce during bwd, attnlab · wgmma-sm90".
  std::string setting() const;
  // 1 - varlen / packed over the whole step's median; empty without both rows.
  std::optional<double> saving() const;
  // Both rows with their parts profiled.
  bool has_parts() const;
};

// The pairs of the scenario: one GPU first, then by GPUs; within a GPU count FA2 first, then attnlab,
// cuDNN and any other source; then AdamW before Muon, and the all-reduce after the backward before
// the one during it, then the sharded optimizer step.
// A row counts where it ran the step of `s` whatever its name, as attention rows are matched by their
// cells (analysis/same_cells.hpp): the scenario its name leads to (`lookup`, each name looked up once,
// one at a time) has the documents, rows and [model] of `s`, and the row the step's tokens. A copy of
// a shipped scenario under another name is measured by the shipped rows; an edit that kept the name,
// or a model changed in the GUI, is another step, never measured by these rows.
std::vector<MeasuredStepPair> measured_step_pairs(const Scenario& s, const TrainingStep& step,
                                                  const LoadedResults& results,
                                                  const ScenarioLookup& lookup = scenario_named);

// A gradient sync as a sentence says it: "all-reduced during the backward as DDP does".
const char* gradient_sync_phrase(GradientSync g);

// Attention's time in a step row (forward + backward parts); empty where not profiled.
std::optional<double> step_attention_us(const StepRow& row);
// The communication no other kernel ran beside: the row's exposed time where it was measured, else
// all of it (an all-reduce after the backward has nothing beside it); empty where not profiled.
std::optional<double> step_exposed_communication_us(const StepRow& row);
// The GPU's busy time: the parts' sum less the communication that ran beside other kernels (the sum
// counts those moments twice, once per stream); empty where not profiled.
std::optional<double> step_busy_us(const StepRow& row);
// The step's median less its busy time: the GPU waiting; empty where not profiled.
std::optional<double> step_idle_us(const StepRow& row);

// One line of a pair's part-by-part table.
struct StepTableLine {
  std::string label;
  std::optional<double> packed, varlen;  // µs per step
};
// A pair's step part by part, as the CLI's --details and the GUI show it: each part, the parts' sum,
// where communication ran its exposed time and the busy time, then idle and the step.
std::vector<StepTableLine> step_table_lines(const MeasuredStepPair& pair);

}  // namespace attnlab
