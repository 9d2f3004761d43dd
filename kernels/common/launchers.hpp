#pragma once
// What a flash kernel's launchers take and how run_flash finds them (kernels/run_flash.cu):
// each kernel has one forward and one backward launcher per instance (dtype x head dim),
// declared in its folder's launch.hpp; a kernel's entry in the launch table lists them.
// Plain C++: a stream is the runtime's opaque pointer (kernels/attention.hpp).
#include <array>
#include <cstdint>

#include "kernels/attention.hpp"
#include "kernels/common/params.cuh"

namespace attnlab::flash {

// What every launch takes beside the kernel's parameters.
struct LaunchArgs {
  int work_items = 0;                // the work list's (row, tile) items
  std::int64_t positions = 0;        // K and V's buffer positions (the Hopper kernels' tensor maps)
  std::int64_t query_positions = 0;  // Q, O and LSE's: Layout::query_tokens
  int* work_counter = nullptr;       // AttentionViews::work_counter, the backward's GradientViews::work_counter
  cudaStream_t stream = nullptr;
  int sm_margin = 0;  // AttentionViews::sm_margin
};

template <typename KernelParams>
using Launcher = void (*)(const KernelParams&, const LaunchArgs&);

// The instances a kernel is built in, in this order: bf16 d64, bf16 d128, fp16 d64, fp16 d128.
inline constexpr int instance_count = 4;
constexpr int instance_of(DType dtype, int head_dim) { return (dtype == DType::fp16 ? 2 : 0) + (head_dim == 128); }
inline const char* instance_name(int instance) {
  static constexpr const char* names[instance_count] = {"bf16 d64", "bf16 d128", "fp16 d64", "fp16 d128"};
  return names[instance];
}
template <typename KernelParams>
using Instances = std::array<Launcher<KernelParams>, instance_count>;  // null: not built for that instance

struct KernelLaunchers {
  FlashKernel kernel;
  Instances<Params> forward;
  Instances<BackwardParams> backward;
  // The backward stores each block's first dQ and adds the rest: the Δ pass then clears only
  // the sums no step writes (backward_passes.hpp, DqSumsReady), else all of them.
  bool backward_stores_first_dq = false;
};

}  // namespace attnlab::flash
