#pragma once
// One way to run an implementation, for every caller (`attnlab run`,
// attnlab-bench, the GPU tests): an AttentionRun owns what one (layout,
// implementation, problem, kernel, pass) needs on the device (the layout's
// device copy and work list, the tensors, naive's workspace; for the backward
// also dO and the gradients of each input set, naive's backward workspace) and offers
//   launch()  one pass, asynchronous (the backward: given the forward's saved outputs);
//   count()   the kernel's own count of tiles and scores beside the cost model's
//             at the kernel's tile;
//   check()   poisoned outputs, one pass, every output written, the error
//             against the fp64 reference (and packed's bleed); the backward:
//             poisoned gradients, forward then backward, against the fp64 backward.
// What the implementations of one scenario share is built once, outside it:
// the layouts and the cost model (ScenarioPlan), the inputs and their
// references (RunInputs). Plain C++, no CUDA types.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/results/pass.hpp"
#include "kernels/attention.hpp"
#include "kernels/backward.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/error_metrics.hpp"
#include "run/check_written.hpp"
#include "run/run_inputs.hpp"
#include "run/scenario_plan.hpp"
#include "run/timing.hpp"

namespace attnlab {

// The kernel's count and the model's, both over all heads: tiles, cells by kind, and
// the scores the kernel's mask left finite against the model's useful + bleed.
struct CountComparison {
  KernelCounts counted;
  KernelCounts model;
  bool equal() const {
    return counted.visited_tiles == model.visited_tiles && counted.cells == model.cells &&
           counted.finite_scores == model.finite_scores;
  }
};

struct RunCheck {
  ErrorStats error;  // against the fp64 reference of the same layout (bwd: the worst gradient's)
  std::optional<GradientErrorStats> gradients;  // bwd: dQ, dK, dV each
  WrittenOutputs written;                       // outputs left unwritten, padding not zeroed
  std::optional<double> bleed_rel_l2;           // packed: how far its outputs are from the per-document ones
  std::string coverage;                         // what the reference covered: "all" or a sample
};

class AttentionRun {
 public:
  // One implementation of a planned scenario: its layout, the plan's kernel, the cost model's counts.
  // `pass`: the forward, or the backward (then the forward runs untimed before it).
  // Throws GpuMemoryError when the device layout or naive's workspaces do not fit.
  AttentionRun(const ScenarioPlan& plan, Implementation implementation, Pass pass = Pass::fwd);
  // One implementation over any layout (which must outlive the run).
  AttentionRun(const Layout& layout, Implementation implementation, const AttentionProblem& problem, FlashKernel kernel,
               Pass pass = Pass::fwd);
  ~AttentionRun();
  AttentionRun(const AttentionRun&) = delete;
  AttentionRun& operator=(const AttentionRun&) = delete;

  Implementation implementation() const { return implementation_; }
  Pass pass() const { return pass_; }
  const Layout& layout() const { return layout_; }
  const char* kernel_name() const { return attnlab::kernel_name(implementation_, kernel_); }

  // Input set 0: the inputs gathered into this layout on the device; the canonical
  // tensors themselves, no copy, where the layout is in canonical order (varlen).
  void take_inputs(RunInputs& inputs);
  // Input set 0 also gets dO gathered from `inputs` when bwd.
  // A new input set for the caller to fill (attnlab-bench rotates several past L2);
  // bwd: with its gradient tensors, dO zero until the caller fills gradients(set).d_o.
  AttentionTensors& add_input_set();
  // bwd: the gradient tensors of input set `set` (modulo the number of sets).
  GradientTensors& gradients(int set) { return *gradients_.at(static_cast<std::size_t>(set) % gradients_.size()); }
  AttentionTensors& input_set(int set) { return *sets_.at(static_cast<std::size_t>(set) % sets_.size()); }
  int input_sets() const { return static_cast<int>(sets_.size()); }

  // One pass on input set `set` (modulo the number of sets); asynchronous. bwd: the
  // backward only, over the forward's outputs: run_forwards() first (time() does).
  void launch(int set = 0);
  // bwd: the forward once on every input set, so O, LSE (and naive's P, of the last set) are there.
  void run_forwards();
  // `warmup` passes, then timed ones: `reps`, fewer (down to 3) where a probe pass
  // says they would take more than a few seconds.
  GpuTiming time(int warmup, int reps);
  // Tiled kernels: one counting pass on input set 0 (it synchronizes). naive: none,
  // its GEMMs compute whole rows and count nothing.
  std::optional<CountComparison> count();
  // Poisons O and LSE of input set 0 (taken from `inputs`), runs one pass and checks it.
  // bwd: poisons dQ, dK, dV (and the workspace), runs forward then backward, checks the gradients.
  RunCheck check(RunInputs& inputs);

 private:
  AttentionRun(const Layout& layout, const Layout* per_document, Implementation implementation,
               const AttentionProblem& problem, FlashKernel kernel, Pass pass, const KernelCounts& model);

  const Layout& layout_;
  const Layout* per_document_;  // the scenario's varlen layout, for packed's bleed; null when unknown
  Implementation implementation_;
  AttentionProblem problem_;
  FlashKernel kernel_;
  Pass pass_;
  KernelCounts model_counts_;  // tiled kernels: the cost model's tiles and scores, all heads
  DeviceLayout device_layout_;
  std::unique_ptr<NaiveAttention> naive_;
  std::unique_ptr<NaiveBackward> naive_backward_;
  std::vector<std::unique_ptr<AttentionTensors>> owned_sets_;
  std::vector<AttentionTensors*> sets_;                      // owned, or the canonical tensors of RunInputs
  std::vector<std::unique_ptr<GradientTensors>> gradients_;  // bwd: one per input set

  void add_gradients();
  void forward(AttentionTensors& t, KernelCounts* counts = nullptr);
  RunCheck check_backward(RunInputs& inputs);
};

}  // namespace attnlab
