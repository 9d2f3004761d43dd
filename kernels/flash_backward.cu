// run_flash_backward: Δ = rowsum(dO∘O) and a zeroed dQ accumulator (one pass), the tiled
// kernel for the flash kernel, dtype and head dim, then dQ = scale·accumulator in the dtype.
#include <cmath>

#include "kernels/backward.hpp"
#include "kernels/backward_steps.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/flash_backward_kernel.cuh"
#include "kernels/kernel_counters.cuh"
#include "kernels/problem_dispatch.cuh"
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
#include "kernels/hopper/flash_wgmma_backward.hpp"
#endif

namespace attnlab {

void run_flash_backward(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
                        const AttentionViews& t, const GradientViews& g, KernelCounts* counts) {
  problem.validate();
  if (!flash_kernel_info(kernel).has_backward)
    throw std::logic_error(std::string("run_flash_backward: ") + flash_kernel_info(kernel).name + " has no backward");
  if (layout.work_tile() != kernel_tile(kernel))
    throw std::logic_error(std::string("run_flash_backward: the work list is not at ") + flash_kernel_info(kernel).name +
                           "'s tile");
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
  switch (kernel) {  // one case per kernel of kernels/kernel_choice.hpp
    case FlashKernel::mma_sm80:
      with_element_and_head_dim(problem, [&]<typename T, int D>() { flash::launch_backward<T, D>(p, items); });
      break;
    case FlashKernel::wgmma_sm90:
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
      with_element_and_head_dim(problem, [&]<typename T, int D>() { hopper::launch_backward<T, D>(p, items); });
      break;
#else
      throw NoGpuError("wgmma-sm90 is not in this build (its CUDA architectures lack sm_90)");
#endif
  }
  convert_from_fp32(p.dq_accum, g.dq, positions * problem.heads * problem.head_dim, p.scale, problem.dtype);
  counters.read();
}

}  // namespace attnlab
