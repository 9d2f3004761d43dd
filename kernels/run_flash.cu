// run_flash and run_flash_backward: the kernels' parameters from the layout and the
// problem, and the kernel's launcher for the dtype and head dim from the launch table.
// The backward is Δ = rowsum(dO∘O) with a zeroed dQ accumulator (one pass), the kernel,
// then dQ = scale·accumulator in the dtype.
#include <algorithm>
#include <cmath>

#include "core/cost/cost_model.hpp"
#include "kernels/attention.hpp"
#include "kernels/backward.hpp"
#include "kernels/common/backward_passes.hpp"
#include "kernels/common/counters.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/kernel_choice.hpp"
#include "kernels/mma_sm80/launch.hpp"
#include "kernels/mma_sm80/shape.hpp"
#include "kernels/wgmma_sm90/shape.hpp"
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
#include "kernels/wgmma_sm90/launch.hpp"
#endif

namespace attnlab {

static_assert(kernel_tile(FlashKernel::wgmma_sm90) == TileShape{wgmma_sm90::kRows, wgmma_sm90::kCols},
              "the work list and the cost model use the kernel's tile (kernels/kernel_choice.hpp)");
static_assert(kernel_tile(FlashKernel::mma_sm80) == TileShape{mma_sm80::kRows, mma_sm80::kCols},
              "the work list and the cost model use the kernel's tile (kernels/kernel_choice.hpp)");
static_assert(kernel_tile(FlashKernel::mma_sm80) == default_flash_tile,
              "the cost model's default tile is the teaching kernel's tile");

namespace {

using flash::KernelLaunchers;

#ifdef ATTNLAB_HAS_HOPPER_KERNEL
// The launchers of rung `rung` of a ladder (`which`: FlashKernelInfo::rung or ::backward_rung),
// with no instance yet.
constexpr KernelLaunchers rung_entry(int FlashKernelInfo::*which, int rung) {
  KernelLaunchers l{flash_kernels.front().kernel, {}, {}};
  for (const FlashKernelInfo& k : flash_kernels)
    if (k.*which == rung) l.kernel = k.kernel;
  return l;
}

// Rung `rung` of the Hopper forward's ladder: its one forward instance, no backward.
template <int rung>
constexpr KernelLaunchers ladder_rung() {
  KernelLaunchers l = rung_entry(&FlashKernelInfo::rung, rung);
  l.forward[flash::instance_of(DType::bf16, wgmma_sm90::ladder_head_dim)] = &wgmma_sm90::launch_forward_rung<rung>;
  return l;
}

// Rung `rung` of the Hopper backward's ladder: the shipped forward and the rung's backward.
template <int rung>
constexpr KernelLaunchers backward_ladder_rung() {
  KernelLaunchers l = rung_entry(&FlashKernelInfo::backward_rung, rung);
  const int instance = flash::instance_of(DType::bf16, wgmma_sm90::ladder_head_dim);
  l.forward[instance] = &wgmma_sm90::launch_forward<__nv_bfloat16, wgmma_sm90::ladder_head_dim>;
  l.backward[instance] = &wgmma_sm90::launch_backward_rung<rung>;
  l.backward_stores_first_dq = wgmma_sm90::backward_rungs[rung - 1].features.dq_first_store;
  return l;
}
#endif

// Every flash kernel this build holds and its launchers (kernel_choice.hpp says what each is).
constexpr KernelLaunchers launch_table[] = {
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
    {FlashKernel::wgmma_sm90,
     flash::every_instance([]<typename T, int D>(flash::Instance<T, D>) { return &wgmma_sm90::launch_forward<T, D>; }),
     flash::every_instance([]<typename T, int D>(flash::Instance<T, D>) { return &wgmma_sm90::launch_backward<T, D>; }),
     wgmma_sm90::shipped_backward_features().dq_first_store},
    ladder_rung<1>(),
    ladder_rung<2>(),
    ladder_rung<3>(),
    ladder_rung<4>(),
    ladder_rung<5>(),
    ladder_rung<6>(),
    backward_ladder_rung<1>(),
    backward_ladder_rung<2>(),
    backward_ladder_rung<3>(),
    backward_ladder_rung<4>(),
    backward_ladder_rung<5>(),
#endif
    {FlashKernel::mma_sm80,
     flash::every_instance([]<typename T, int D>(flash::Instance<T, D>) { return &mma_sm80::launch_forward<T, D>; }),
     flash::every_instance([]<typename T, int D>(flash::Instance<T, D>) { return &mma_sm80::launch_backward<T, D>; })},
};

constexpr const KernelLaunchers* launchers_of(FlashKernel kernel) {
  for (const KernelLaunchers& l : launch_table)
    if (l.kernel == kernel) return &l;
  return nullptr;
}

constexpr int entries_of(FlashKernel kernel) {
  return static_cast<int>(std::count_if(std::begin(launch_table), std::end(launch_table),
                                        [kernel](const KernelLaunchers& l) { return l.kernel == kernel; }));
}

// The table against kernel_choice.hpp's: each kernel once, a backward exactly where it has
// one, and only the sm_90 kernels missing (together) where the build has no sm_90.
constexpr bool table_matches_kernel_choice() {
  const bool hopper_built = entries_of(FlashKernel::wgmma_sm90) == 1;
  for (const FlashKernelInfo& k : flash_kernels) {
    if (entries_of(k.kernel) != (k.min_compute_capability < 90 || hopper_built ? 1 : 0)) return false;
    for (const KernelLaunchers& l : launch_table)
      if (l.kernel == k.kernel &&
          std::any_of(l.backward.begin(), l.backward.end(), [](auto b) { return b != nullptr; }) != k.has_backward)
        return false;
  }
  return true;
}
static_assert(table_matches_kernel_choice(), "every flash kernel of kernel_choice.hpp in the launch table");

// `pass`'s launcher of `kernel` for the problem's dtype and head dim.
template <typename KernelParams>
flash::Launcher<KernelParams> launcher(FlashKernel kernel, flash::Instances<KernelParams> KernelLaunchers::*pass,
                                       const AttentionProblem& problem) {
  const FlashKernelInfo& info = flash_kernel_info(kernel);
  const KernelLaunchers* l = launchers_of(kernel);
  if (!l) throw NoGpuError(std::string(info.name) + " is not in this build (its CUDA architectures lack sm_90)");
  const int instance = flash::instance_of(problem.dtype, problem.head_dim);
  const flash::Launcher<KernelParams> launch = (l->*pass)[instance];
  if (!launch) {
    std::string built;
    for (int i = 0; i < flash::instance_count; ++i)
      if ((l->*pass)[i]) built += std::string(built.empty() ? "" : ", ") + flash::instance_name(i);
    throw InputError(std::string("--kernel ") + info.name + ": built for " + built + " only, not " +
                     flash::instance_name(instance));
  }
  return launch;
}

// What both passes check before a launch: the problem, the work list's tile, the tensors' positions
// (K and V's, on a layout with a query side), the SM margin.
void check_run(const char* pass, FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
               const AttentionViews& t) {
  const std::int64_t positions = t.positions;
  problem.validate();
  if (layout.work_tile() != kernel_tile(kernel))
    throw std::logic_error(std::string(pass) + ": the work list is not at " + flash_kernel_info(kernel).name +
                           "'s tile");
  if (positions != layout.host().buffer_tokens())
    throw std::invalid_argument(std::string(pass) + ": tensors hold " + std::to_string(positions) +
                                " positions, the layout " + std::to_string(layout.host().buffer_tokens()));
  if (t.sm_margin < 0) throw std::invalid_argument(std::string(pass) + ": a negative SM margin");
}

}  // namespace

void run_flash(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem, const AttentionViews& t,
               cudaStream_t stream, KernelCounts* counts) {
  check_run("run_flash", kernel, layout, problem, t);
  if (!t.work_counter) throw std::invalid_argument("run_flash: the tensors' views have no work counter");
  if (t.o_sums && counts) throw std::invalid_argument("run_flash: a counting run stores its output, into no sums");
  const flash::Launcher<flash::Params> launch = launcher(kernel, &KernelLaunchers::forward, problem);
  const flash::KernelCounters counters(counts, stream);
  flash::Params p{};
  p.layout = layout.view();
  p.work = static_cast<const WorkItem*>(layout.work_list());
  p.heads = problem.heads;
  p.kv_heads = problem.kv_heads;
  p.scale_log2 = problem.softmax_scale() * static_cast<float>(M_LOG2E);
  p.q = t.q;
  p.k = t.k;
  p.v = t.v;
  p.o = t.o;
  p.lse = t.lse;
  p.o_sums = t.o_sums;
  p.counts = counters.device();
  launch(p, {layout.work_items(), t.positions, layout.host().query_tokens(), t.work_counter, stream, t.sm_margin});
  counters.read();
}

void run_flash_backward(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
                        const AttentionViews& t, const GradientViews& g, cudaStream_t stream, KernelCounts* counts) {
  if (!flash_kernel_info(kernel).has_backward)
    throw std::logic_error(std::string("run_flash_backward: ") + flash_kernel_info(kernel).name + " has no backward");
  check_run("run_flash_backward", kernel, layout, problem, t);
  if (layout.host().has_query_side())
    throw std::logic_error("run_flash_backward: the backward runs a layout's own queries only, not a query side");
  if (g.positions != t.positions)
    throw std::invalid_argument("run_flash_backward: gradients hold " + std::to_string(g.positions) +
                                " positions, the tensors " + std::to_string(t.positions));
  if (!g.work_counter) throw std::invalid_argument("run_flash_backward: the gradients' views have no work counter");
  const flash::Launcher<flash::BackwardParams> launch = launcher(kernel, &KernelLaunchers::backward, problem);
  const bool stores_first_dq = launchers_of(kernel)->backward_stores_first_dq;
  if (stores_first_dq && !g.dq_arrivals)
    throw std::invalid_argument("run_flash_backward: the gradients' views have no dQ arrivals");
  const std::int64_t positions = t.positions;
  compute_delta(problem, positions, g.d_o, t.o, g.delta,
                stores_first_dq ? DqSumsReady{g.dq_accum, t.lse, g.dq_arrivals} : DqSumsReady{g.dq_accum}, stream);

  const flash::KernelCounters counters(counts, stream);
  flash::BackwardParams p{};
  p.layout = layout.view();
  p.work = static_cast<const WorkItem*>(layout.backward_work_list());
  p.heads = problem.heads;
  p.kv_heads = problem.kv_heads;
  p.scale = problem.softmax_scale();
  p.scale_log2 = p.scale * static_cast<float>(M_LOG2E);
  p.q = t.q;
  p.k = t.k;
  p.v = t.v;
  p.d_o = g.d_o;
  p.lse = t.lse;
  p.delta = g.delta;
  p.dq_accum = g.dq_accum;
  p.dq_arrivals = g.dq_arrivals;
  p.dk = g.dk;
  p.dv = g.dv;
  p.counts = counters.device();
  launch(p, {layout.work_items(), positions, positions, g.work_counter, stream, t.sm_margin});
  convert_from_fp32(p.dq_accum, g.dq, positions * problem.heads * problem.head_dim, p.scale, problem.dtype, stream);
  counters.read();
}

}  // namespace attnlab
