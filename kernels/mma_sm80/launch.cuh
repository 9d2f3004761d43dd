#pragma once
// The teaching kernel's launchers, forward and backward, each instantiated per
// (dtype, head dim) in its own .cu file so the instantiations compile in parallel.
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/scheduler.cuh"
#include "kernels/mma_sm80/backward_kernel.cuh"
#include "kernels/mma_sm80/forward_kernel.cuh"
#include "kernels/mma_sm80/launch.hpp"

namespace attnlab::mma_sm80 {

// A persistent grid: as many CTAs as fit on the GPU at once, each walking the work list.
template <typename T, int D>
void launch_forward(const Params& params, const flash::LaunchArgs& args) {
  const std::string name = "mma-sm80 " + flash::instance_name<T, D>();
  const flash::StaticScheduler scheduler(flash::work_of(args.work_items, params.heads, name));
  flash::with_counting(params, name, [&]<bool counting>(const std::string& what) {
    flash::launch_scheduled<forward<T, D, counting>>(
        what, kThreads, smem_bytes<D>(), scheduler, args.stream, [&] { return params; }, args.sm_margin);
  });
}

// One CTA per (work item, KV head); the hardware scheduler hands them out in order.
template <typename T, int D>
void launch_backward(const BackwardParams& params, const flash::LaunchArgs& args) {
  const std::string name = "mma-sm80 backward " + flash::instance_name<T, D>();
  const flash::OneCtaPerWork scheduler(flash::work_of(args.work_items, params.kv_heads, name));
  flash::with_counting(params, name, [&]<bool counting>(const std::string& what) {
    flash::launch_scheduled<backward<T, D, counting>>(what, kThreads, backward_smem_bytes<D>(), scheduler, args.stream,
                                                      [&] { return params; });
  });
}

}  // namespace attnlab::mma_sm80
