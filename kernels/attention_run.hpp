#pragma once
// One way to run an implementation, for every caller (`attnlab run`,
// attnlab-bench, the GPU tests): an AttentionRun owns what one (layout,
// implementation, problem, kernel, pass) needs on the device (the layout's
// device copy and work list, the tensors, naive's workspace) and offers
//   launch()  one pass, asynchronous;
//   count()   the kernel's own count of tiles and scores beside the cost model's
//             at the kernel's tile;
//   check()   poisoned outputs, one pass, every output written, the error
//             against the fp64 reference (and packed's bleed).
// What the implementations of one scenario share is built once, outside it:
// the layouts and the cost model (ScenarioPlan), the inputs and their
// references (RunInputs). Plain C++, no CUDA types.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/results_csv.hpp"
#include "kernels/attention.hpp"
#include "kernels/run_inputs.hpp"
#include "kernels/scenario_plan.hpp"
#include "reference/error_metrics.hpp"

namespace attnlab {

// The kernel's count and the model's, both over all heads.
struct CountComparison {
  KernelCounts counted;
  KernelCounts model;
  bool equal() const { return counted.visited_tiles == model.visited_tiles && counted.cells == model.cells; }
};

struct RunCheck {
  ErrorStats error;                    // against the fp64 reference of the same layout
  WrittenOutputs written;              // outputs left unwritten, padding not zeroed
  std::optional<double> bleed_rel_l2;  // packed: how far its outputs are from the per-document ones
  std::string coverage;                // what the reference covered: "all" or a sample
};

class AttentionRun {
 public:
  // One implementation of a planned scenario: its layout, the plan's kernel, the cost model's counts.
  // `pass` is where the backward pass will plug in; today only fwd runs (InputError otherwise).
  // Throws GpuMemoryError when the device layout or naive's workspace does not fit.
  AttentionRun(const ScenarioPlan& plan, Implementation implementation, Pass pass = Pass::fwd);
  // One implementation over any layout (which must outlive the run).
  AttentionRun(const Layout& layout, Implementation implementation, const AttentionProblem& problem, FlashKernel kernel,
               Pass pass = Pass::fwd);
  ~AttentionRun();
  AttentionRun(const AttentionRun&) = delete;
  AttentionRun& operator=(const AttentionRun&) = delete;

  Implementation implementation() const { return implementation_; }
  const Layout& layout() const { return layout_; }
  const char* kernel_name() const { return attnlab::kernel_name(implementation_, kernel_); }

  // Input set 0: the inputs gathered into this layout on the device; the canonical
  // tensors themselves, no copy, where the layout is in canonical order (varlen).
  void take_inputs(RunInputs& inputs);
  // A new input set for the caller to fill (attnlab-bench rotates several past L2).
  AttentionTensors& add_input_set();
  AttentionTensors& input_set(int set) { return *sets_.at(static_cast<std::size_t>(set) % sets_.size()); }
  int input_sets() const { return static_cast<int>(sets_.size()); }

  // One pass on input set `set` (modulo the number of sets); asynchronous.
  void launch(int set = 0);
  // `warmup` passes, then timed ones: `reps`, fewer (down to 3) where a probe pass
  // says they would take more than a few seconds.
  GpuTiming time(int warmup, int reps);
  // Tiled kernels: one counting pass on input set 0 (it synchronizes). naive: none,
  // its GEMMs compute whole rows and count nothing.
  std::optional<CountComparison> count();
  // Poisons O and LSE of input set 0 (taken from `inputs`), runs one pass and checks it.
  RunCheck check(RunInputs& inputs);

 private:
  AttentionRun(const Layout& layout, const Layout* per_document, Implementation implementation,
               const AttentionProblem& problem, FlashKernel kernel, Pass pass, const KernelCounts& model);

  const Layout& layout_;
  const Layout* per_document_;  // the scenario's varlen layout, for packed's bleed; null when unknown
  Implementation implementation_;
  AttentionProblem problem_;
  FlashKernel kernel_;
  KernelCounts model_counts_;  // tiled kernels: the cost model's tiles and scores, all heads
  DeviceLayout device_layout_;
  std::unique_ptr<NaiveAttention> naive_;
  std::vector<std::unique_ptr<AttentionTensors>> owned_sets_;
  std::vector<AttentionTensors*> sets_;  // owned, or the canonical tensors of RunInputs
};

}  // namespace attnlab
