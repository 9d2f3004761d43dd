#include "kernels/attention_run.hpp"

#include <algorithm>

namespace attnlab {

namespace {

// The cost model's count of a tiled kernel over `layout` (core/cost_model.hpp), all heads.
KernelCounts model_counts(const Layout& layout, TileShape tile, int heads) {
  const LayoutCount per_head = count_layout_by_query_tile(layout, tile);
  return {per_head.tiles_visited * heads, per_head.cells.times(heads)};
}

KernelCounts planned_counts(const ScenarioPlan& plan, Implementation implementation) {
  const ImplementationCost& cost = plan.model[implementation];
  return {cost.tiles_visited, cost.scores};
}

}  // namespace

AttentionRun::AttentionRun(const ScenarioPlan& plan, Implementation implementation, Pass pass)
    : AttentionRun(plan.layouts->of(implementation), &plan.layouts->varlen, implementation, plan.problem, plan.kernel,
                   pass, planned_counts(plan, implementation)) {}

AttentionRun::AttentionRun(const Layout& layout, Implementation implementation, const AttentionProblem& problem,
                           FlashKernel kernel, Pass pass)
    : AttentionRun(layout, nullptr, implementation, problem, kernel, pass,
                   materializes_scores(implementation) ? KernelCounts{}
                                                       : model_counts(layout, kernel_tile(kernel), problem.heads)) {}

AttentionRun::AttentionRun(const Layout& layout, const Layout* per_document, Implementation implementation,
                           const AttentionProblem& problem, FlashKernel kernel, Pass pass, const KernelCounts& model)
    : layout_(layout),
      per_document_(per_document),
      implementation_(implementation),
      problem_(problem),
      kernel_(kernel),
      model_counts_(model),
      device_layout_(layout, kernel_tile(kernel)) {
  problem_.validate();
  if (pass != Pass::fwd) throw InputError("pass: only the forward pass runs yet, got " + std::string(pass_name(pass)));
  if (layout.kind != layout_of(implementation))
    throw std::invalid_argument(std::string(implementation_name(implementation)) + " runs over a " +
                                layout_kind_name(layout_of(implementation)) + " layout, got a " +
                                layout_kind_name(layout.kind) + " one");
  if (implementation == Implementation::naive) naive_ = std::make_unique<NaiveAttention>(device_layout_, problem_);
}

AttentionRun::~AttentionRun() = default;

void AttentionRun::take_inputs(RunInputs& inputs) {
  if (layout_.kind == LayoutKind::varlen && layout_.buffer_tokens() == inputs.device().positions) {
    sets_.push_back(&inputs.device());
    return;
  }
  gather_qkv(inputs.device(), device_layout_, add_input_set());
}

AttentionTensors& AttentionRun::add_input_set() {
  owned_sets_.push_back(std::make_unique<AttentionTensors>(layout_.buffer_tokens(), problem_));
  sets_.push_back(owned_sets_.back().get());
  return *sets_.back();
}

void AttentionRun::launch(int set) {
  if (sets_.empty()) throw std::logic_error("AttentionRun::launch: no input set yet");
  AttentionTensors& t = input_set(set);
  if (naive_)
    naive_->run(t);
  else
    run_flash(kernel_, device_layout_, problem_, t);
}

GpuTiming AttentionRun::time(int warmup, int reps) {
  const std::function<void()> pass = [this] { launch(); };
  const GpuTiming probe = time_on_gpu(pass, 1, 1);
  const int affordable = static_cast<int>(3e6 / std::max(probe.median_us, 1.0));  // about 3 s of timed passes
  return time_on_gpu(pass, warmup, std::clamp(affordable, std::min(3, reps), reps));
}

std::optional<CountComparison> AttentionRun::count() {
  if (naive_) return std::nullopt;
  if (sets_.empty()) throw std::logic_error("AttentionRun::count: no input set yet");
  CountComparison c{{}, model_counts_};
  run_flash(kernel_, device_layout_, problem_, input_set(0), &c.counted);
  return c;
}

RunCheck AttentionRun::check(RunInputs& inputs) {
  if (sets_.empty()) take_inputs(inputs);
  AttentionTensors& t = input_set(0);
  t.o.poison();
  t.lse.poison();
  launch(0);
  const std::vector<float> o = download_o(t, problem_.dtype);
  const std::vector<float> lse = download_lse(t);
  RunCheck c;
  c.written = check_written(layout_, problem_, o, lse);
  c.error = compare_to_reference(layout_, inputs.reference(layout_), o, lse);
  c.coverage = inputs.coverage(layout_);
  if (implementation_ == Implementation::packed && per_document_)
    c.bleed_rel_l2 = compare_across_layouts(layout_, o, *per_document_, inputs.reference(*per_document_)).rel_l2;
  return c;
}

}  // namespace attnlab
