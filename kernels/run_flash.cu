// run_flash and run_flash_backward: the kernels' parameters from the layout and the
// problem, and the kernel (by kernel_choice.hpp's entry) and its instantiation for the
// dtype and head dim. The backward is Δ = rowsum(dO∘O) with a zeroed dQ accumulator
// (one pass), the kernel, then dQ = scale·accumulator in the dtype.
#include <cmath>

#include "core/cost_model.hpp"
#include "kernels/attention.hpp"
#include "kernels/backward.hpp"
#include "kernels/common/backward_passes.hpp"
#include "kernels/common/counters.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/dispatch.cuh"
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

[[noreturn]] void not_built(FlashKernel kernel) {
  throw NoGpuError(std::string(flash_kernel_info(kernel).name) +
                   " is not in this build (its CUDA architectures lack sm_90)");
}

}  // namespace

void run_flash(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem, const AttentionViews& t,
               KernelCounts* counts) {
  problem.validate();
  if (layout.work_tile() != kernel_tile(kernel))
    throw std::logic_error(std::string("run_flash: the work list is not at ") + flash_kernel_info(kernel).name +
                           "'s tile");
  if (t.positions != layout.host().buffer_tokens())
    throw std::invalid_argument("run_flash: tensors hold " + std::to_string(t.positions) + " positions, the layout " +
                                std::to_string(layout.host().buffer_tokens()));
  const flash::KernelCounters counters(counts);
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
  p.counts = counters.device();
  p.work_counter = layout.work_counter();
  const int items = layout.work_items();
  if (kernel == FlashKernel::mma_sm80) {
    with_element_and_head_dim(problem, [&]<typename T, int D>() { mma_sm80::launch_forward<T, D>(p, items); });
  } else if (!flash_kernel_built(kernel)) {
    not_built(kernel);
  } else {
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
    const FlashKernelInfo& info = flash_kernel_info(kernel);
    if (info.rung > 0)
      wgmma_sm90::launch_forward_rung(info.rung, info.name, p, items, t.positions, problem.dtype == DType::bf16,
                                      problem.head_dim);
    else
      with_element_and_head_dim(problem,
                                [&]<typename T, int D>() { wgmma_sm90::launch_forward<T, D>(p, items, t.positions); });
#endif
  }
  counters.read();
}

void run_flash_backward(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
                        const AttentionViews& t, const GradientViews& g, KernelCounts* counts) {
  problem.validate();
  if (!flash_kernel_info(kernel).has_backward)
    throw std::logic_error(std::string("run_flash_backward: ") + flash_kernel_info(kernel).name + " has no backward");
  if (layout.work_tile() != kernel_tile(kernel))
    throw std::logic_error(std::string("run_flash_backward: the work list is not at ") +
                           flash_kernel_info(kernel).name + "'s tile");
  const std::int64_t positions = layout.host().buffer_tokens();
  if (t.positions != positions || g.positions != positions)
    throw std::invalid_argument("run_flash_backward: tensors hold " + std::to_string(t.positions) +
                                " positions and gradients " + std::to_string(g.positions) + ", the layout " +
                                std::to_string(positions));
  compute_delta(problem, positions, g.d_o, t.o, g.delta, g.dq_accum);  // and zeroes the dQ sums

  const flash::KernelCounters counters(counts);
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
  p.dk = g.dk;
  p.dv = g.dv;
  p.counts = counters.device();
  const int items = layout.work_items();
  if (kernel == FlashKernel::mma_sm80) {
    with_element_and_head_dim(problem, [&]<typename T, int D>() { mma_sm80::launch_backward<T, D>(p, items); });
  } else if (!flash_kernel_built(kernel)) {
    not_built(kernel);
  } else {
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
    with_element_and_head_dim(problem, [&]<typename T, int D>() { wgmma_sm90::launch_backward<T, D>(p, items); });
#endif
  }
  convert_from_fp32(p.dq_accum, g.dq, positions * problem.heads * problem.head_dim, p.scale, problem.dtype);
  counters.read();
}

}  // namespace attnlab
