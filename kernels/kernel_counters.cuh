#pragma once
// The counting run's counters, shared by the forward and backward flash kernels:
// zeroed device memory the CTAs add into (flash::add_counts), read back as KernelCounts.
#include "kernels/attention.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/flash_kernel.cuh"

namespace attnlab::flash {

class KernelCounters {
 public:
  // Allocates only when `counts` is given: a timed run adds nothing.
  explicit KernelCounters(KernelCounts* counts) : counts_(counts) {
    if (!counts_) return;
    buffer_ = DeviceBuffer(sizeof(DeviceCounts));
    CUDA_CHECK(cudaMemset(buffer_.data(), 0, sizeof(DeviceCounts)));
  }
  DeviceCounts* device() const { return static_cast<DeviceCounts*>(buffer_.data()); }  // null when not counting
  // After the kernel: waits for it and fills the KernelCounts given.
  void read() const {
    if (!counts_) return;
    DeviceCounts c{};
    buffer_.download(&c, sizeof c);
    counts_->visited_tiles = static_cast<std::int64_t>(c.visited_tiles);
    for (int kind = 0; kind < computed_kind_count; ++kind) counts_->cells.n[kind] = static_cast<std::int64_t>(c.cells[kind]);
  }

 private:
  KernelCounts* counts_;
  DeviceBuffer buffer_;
};

}  // namespace attnlab::flash
