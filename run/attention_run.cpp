#include "run/attention_run.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// The cost model's count of a tiled kernel over `layout` (core/cost/cost_model.hpp), all
// heads: tiles, cells by kind, and the scores a right mask leaves finite (useful + bleed).
KernelCounts model_counts(const Layout& layout, TileShape tile, int heads) {
  const LayoutCount per_head = count_layout_by_query_tile(layout, tile);
  const CellCounts cells = per_head.cells.times(heads);
  return {per_head.tiles_visited * heads, cells, cells.attended()};
}

KernelCounts planned_counts(const ScenarioPlan& plan, Implementation implementation) {
  const ImplementationCost& cost = plan.model[implementation];
  return {cost.tiles_visited, cost.scores, cost.scores.attended()};
}

// What a backward wrote into poisoned gradients, value by value (not per head as
// check_written): values of valid positions not finite, values of padding not 0.
void add_written_gradients(const Layout& layout, const std::vector<float>& values, std::size_t width,
                           WrittenOutputs& w) {
  for (std::int64_t pos = 0; pos < layout.buffer_tokens(); ++pos)
    for (std::size_t i = 0; i < width; ++i) {
      const float x = values[static_cast<std::size_t>(pos) * width + i];
      if (layout.token_source[pos] >= 0)
        w.unwritten += !std::isfinite(x);
      else
        w.padding_not_zero += x != 0.f;
    }
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
      pass_(pass),
      model_counts_(model),
      device_layout_(layout, kernel_tile(kernel)) {
  problem_.validate();
  if (pass == Pass::bwd && !materializes_scores(implementation) && !flash_kernel_info(kernel).has_backward)
    throw std::invalid_argument(std::string(flash_kernel_info(kernel).name) + " has no backward pass");
  if (layout.kind != layout_of(implementation))
    throw std::invalid_argument(std::string(implementation_name(implementation)) + " runs over a " +
                                layout_kind_name(layout_of(implementation)) + " layout, got a " +
                                layout_kind_name(layout.kind) + " one");
  if (implementation == Implementation::naive) {
    naive_ = std::make_unique<NaiveAttention>(device_layout_, problem_);
    if (pass == Pass::bwd) naive_backward_ = std::make_unique<NaiveBackward>(device_layout_, problem_);
  }
}

AttentionRun::~AttentionRun() = default;

void AttentionRun::take_inputs(RunInputs& inputs) {
  if (layout_.kind == LayoutKind::varlen && layout_.buffer_tokens() == inputs.device().positions) {
    sets_.push_back(&inputs.device());
    if (pass_ == Pass::bwd) add_gradients();
  } else {
    gather_qkv(inputs.device(), device_layout_, add_input_set());
  }
  if (pass_ == Pass::bwd) {
    const std::size_t q_width = std::size_t(problem_.heads) * problem_.head_dim;
    upload_d_o(*gradients_.back(), problem_.dtype, gather_tokens(layout_, inputs.d_o(), q_width));
  }
}

AttentionTensors& AttentionRun::add_input_set() {
  owned_sets_.push_back(std::make_unique<AttentionTensors>(layout_.buffer_tokens(), problem_));
  sets_.push_back(owned_sets_.back().get());
  if (pass_ == Pass::bwd) add_gradients();
  return *sets_.back();
}

void AttentionRun::add_gradients() {
  gradients_.push_back(std::make_unique<GradientTensors>(layout_.buffer_tokens(), problem_));
  // Finite until the caller fills it: naive's GEMMs read dO at padding too.
  upload_d_o(*gradients_.back(), problem_.dtype,
             std::vector<float>(std::size_t(layout_.buffer_tokens()) * problem_.heads * problem_.head_dim, 0.f));
}

void AttentionRun::forward(AttentionTensors& t, KernelCounts* counts) {
  if (naive_)
    naive_->run(t);
  else
    run_flash(kernel_, device_layout_, problem_, t, nullptr, counts);
}

void AttentionRun::run_forwards() {
  for (AttentionTensors* t : sets_) forward(*t);
}

void AttentionRun::launch(int set) {
  if (sets_.empty()) throw std::logic_error("AttentionRun::launch: no input set yet");
  AttentionTensors& t = input_set(set);
  if (pass_ == Pass::fwd)
    forward(t);
  else if (naive_backward_)
    naive_backward_->run(*naive_, t, gradients(set));
  else
    run_flash_backward(kernel_, device_layout_, problem_, t, gradients(set));
}

GpuTiming AttentionRun::time(int warmup, int reps) {
  if (pass_ == Pass::bwd) run_forwards();
  const std::function<void()> pass = [this] { launch(); };
  const GpuTiming probe = time_on_gpu(pass, 1, 1);
  const int affordable = static_cast<int>(3e6 / std::max(probe.median_us, 1.0));  // about 3 s of timed passes
  return time_on_gpu(pass, warmup, std::clamp(affordable, std::min(3, reps), reps));
}

std::optional<CountComparison> AttentionRun::count() {
  if (naive_) return std::nullopt;
  if (sets_.empty()) throw std::logic_error("AttentionRun::count: no input set yet");
  // The backward visits the forward's tiles (its kernel's): the model's counts are the same.
  CountComparison c{{}, model_counts_};
  if (pass_ == Pass::fwd) {
    forward(input_set(0), &c.counted);
  } else {
    forward(input_set(0));
    run_flash_backward(kernel_, device_layout_, problem_, input_set(0), gradients(0), nullptr, &c.counted);
  }
  return c;
}

RunCheck AttentionRun::check(RunInputs& inputs) {
  if (sets_.empty()) take_inputs(inputs);
  if (pass_ == Pass::bwd) return check_backward(inputs);
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

RunCheck AttentionRun::check_backward(RunInputs& inputs) {
  AttentionTensors& t = input_set(0);
  GradientTensors& g = gradients(0);
  for (DeviceBuffer* b : {&g.dq, &g.dk, &g.dv, &g.delta, &g.dq_accum}) b->poison();
  forward(t);
  launch(0);
  const HostGradients host = download_gradients(g, problem_.dtype);
  const std::size_t q_width = std::size_t(problem_.heads) * problem_.head_dim;
  const std::size_t kv_width = std::size_t(problem_.kv_heads) * problem_.head_dim;
  RunCheck c;
  add_written_gradients(layout_, host.dq, q_width, c.written);
  add_written_gradients(layout_, host.dk, kv_width, c.written);
  add_written_gradients(layout_, host.dv, kv_width, c.written);
  c.gradients = compare_gradients_to_reference(layout_, inputs.reference_gradients(layout_), host.dq, host.dk, host.dv);
  c.error = c.gradients->worst();
  c.coverage = inputs.coverage(layout_);
  return c;
}

}  // namespace attnlab
