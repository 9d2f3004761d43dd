// run_flash: fills the kernel's parameters from the layout and the problem and
// picks the kernel and its instantiation for the dtype and head dim.
#include <cmath>

#include "core/cost_model.hpp"
#include "kernels/attention.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/flash_launch.hpp"
#include "kernels/kernel_counters.cuh"
#include "kernels/problem_dispatch.cuh"
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
#include "kernels/hopper/flash_wgmma.hpp"
#endif

namespace attnlab {

static_assert(flash::kRows == kernel_tile(FlashKernel::mma_sm80).rows &&
                  flash::kCols == kernel_tile(FlashKernel::mma_sm80).cols,
              "the work list and the cost model use the kernel's tile (kernels/kernel_choice.hpp)");
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
static_assert(hopper::kRows == kernel_tile(FlashKernel::wgmma_sm90).rows &&
                  hopper::kCols == kernel_tile(FlashKernel::wgmma_sm90).cols,
              "the work list and the cost model use the kernel's tile (kernels/kernel_choice.hpp)");
#endif
static_assert(kernel_tile(FlashKernel::mma_sm80) == default_flash_tile,
              "the cost model's default tile is the teaching kernel's tile");

void run_flash(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
               const AttentionViews& t, KernelCounts* counts) {
  problem.validate();
  if (layout.work_tile() != kernel_tile(kernel))
    throw std::logic_error(std::string("run_flash: the work list is not at ") + flash_kernel_info(kernel).name +
                           "'s tile");
  if (t.positions != layout.host().buffer_tokens())
    throw std::invalid_argument("run_flash: tensors hold " + std::to_string(t.positions) +
                                " positions, the layout " + std::to_string(layout.host().buffer_tokens()));
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
  const int items = layout.work_items();
  switch (kernel) {  // one case per kernel of kernels/kernel_choice.hpp
    case FlashKernel::mma_sm80:
      with_element_and_head_dim(problem, [&]<typename T, int D>() { flash::launch_forward<T, D>(p, items); });
      break;
    case FlashKernel::wgmma_sm90:
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
      with_element_and_head_dim(problem,
                                [&]<typename T, int D>() { hopper::launch_forward<T, D>(p, items, t.positions); });
      break;
#else
      throw NoGpuError("wgmma-sm90 is not in this build (its CUDA architectures lack sm_90)");
#endif
  }
  counters.read();
}

}  // namespace attnlab
