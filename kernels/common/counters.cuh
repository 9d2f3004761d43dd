#pragma once
// The counting run's counters, shared by every flash kernel, forward and backward:
// zeroed device memory the CTAs add into, read back as KernelCounts. Counting is a
// kernel's compile-time switch (its `counting` template argument): the timed
// instantiations hold none of this code.
#include <cmath>

#include "kernels/attention.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/params.cuh"

namespace attnlab::flash {

// A CTA's tiles and cells by kind, added once at its end.
__device__ __forceinline__ void add_counts(DeviceCounts* to, const CellCounts& c, long long tiles) {
  atomicAdd(&to->visited_tiles, static_cast<unsigned long long>(tiles));
  for (int kind = 0; kind < computed_kind_count; ++kind)
    atomicAdd(&to->cells[kind], static_cast<unsigned long long>(c.n[kind]));
}

// The elements of a thread's tile of scores that its mask left finite.
template <int n>
__device__ __forceinline__ int finite_scores(const float (&s)[n]) {
  int finite = 0;
#pragma unroll
  for (int e = 0; e < n; ++e) finite += isfinite(s[e]) ? 1 : 0;
  return finite;
}

// A thread's finite scores, added once at its end.
__device__ __forceinline__ void add_finite_scores(DeviceCounts* to, long long finite) {
  if (finite > 0) atomicAdd(&to->finite_scores, static_cast<unsigned long long>(finite));
}

class KernelCounters {
 public:
  // Allocates only when `counts` is given: a timed run adds nothing. Zeroed on `stream`,
  // the kernel's.
  KernelCounters(KernelCounts* counts, cudaStream_t stream) : counts_(counts), stream_(stream) {
    if (!counts_) return;
    buffer_ = DeviceBuffer(sizeof(DeviceCounts));
    CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, sizeof(DeviceCounts), stream_));
  }
  DeviceCounts* device() const { return static_cast<DeviceCounts*>(buffer_.data()); }  // null when not counting
  // After the kernel: waits for its stream and fills the KernelCounts given.
  void read() const {
    if (!counts_) return;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    DeviceCounts c{};
    buffer_.download(&c, sizeof c);
    counts_->visited_tiles = static_cast<std::int64_t>(c.visited_tiles);
    for (int kind = 0; kind < computed_kind_count; ++kind)
      counts_->cells.n[kind] = static_cast<std::int64_t>(c.cells[kind]);
    counts_->finite_scores = static_cast<std::int64_t>(c.finite_scores);
  }

 private:
  KernelCounts* counts_;
  cudaStream_t stream_;
  DeviceBuffer buffer_;
};

}  // namespace attnlab::flash
