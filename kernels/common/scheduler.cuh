#pragma once
// Which work a CTA takes (FlashAttention-3's tile scheduler). A scheduler is made on the
// host from the work a launch covers, tells the launcher the grid it needs, and is
// passed to the kernel by value, which walks its work by asking it:
//   for (WorkTile w = scheduler.get_initial_work(); scheduler.is_valid(w); w = scheduler.get_next_work(w))
// A work index counts the work list's (row, tile) items times the heads a CTA takes one
// at a time: index = item * heads + head (the forward's query heads, the backward's KV
// heads), so the CTAs running at one time work on neighbouring tiles of the same rows
// and share their K and V in L2 (work_item.cuh decodes an index).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.hpp"

namespace attnlab::flash {

struct WorkTile {
  int index;
};

// The work of `items` work-list items times `heads` heads. Throws past what an int counts
// (a grid's size and the schedulers' indices are ints); `kernel` names the kernel.
inline int work_of(int items, int heads, const std::string& kernel) {
  const long long work = static_cast<long long>(items) * heads;
  if (work > INT_MAX)
    throw std::runtime_error(kernel + ": " + std::to_string(work) + " work tiles, more than an int counts");
  return static_cast<int>(work);
}

// A persistent grid: as many CTAs as are resident at once, no more than the work; CTA b
// takes b, b + grid, ...
class StaticScheduler {
 public:
  explicit StaticScheduler(int work) : work_(work) {}
  int grid_size(int resident_ctas) const { return std::min(work_, resident_ctas); }
  void prepare(cudaStream_t) const {}
  __device__ WorkTile get_initial_work() const { return {static_cast<int>(blockIdx.x)}; }
  __device__ bool is_valid(WorkTile w) const { return w.index < work_; }
  __device__ WorkTile get_next_work(WorkTile w) const { return {w.index + static_cast<int>(gridDim.x)}; }

 private:
  int work_;
};

// The persistent grid, CTA b starting with b; after it, whichever CTA asks first takes
// the next from an atomic counter, so a CTA that drew light items takes more. The
// counter is zeroed on the launch's stream: launches at the same time need their own.
class CounterScheduler : public StaticScheduler {
 public:
  CounterScheduler(int work, int* counter) : StaticScheduler(work), counter_(counter) {}
  void prepare(cudaStream_t stream) const { CUDA_CHECK(cudaMemsetAsync(counter_, 0, sizeof(int), stream)); }
  __device__ WorkTile get_next_work(WorkTile) const { return {static_cast<int>(gridDim.x) + atomicAdd(counter_, 1)}; }

 private:
  int* counter_;
};

// One CTA per work index (the backwards): the grid is the work, and a CTA's one work
// index is its own, always valid, with none after it.
class OneCtaPerWork {
 public:
  explicit OneCtaPerWork(int work) : work_(work) {}
  int grid_size(int) const { return work_; }
  void prepare(cudaStream_t) const {}
  __device__ WorkTile get_initial_work() const { return {static_cast<int>(blockIdx.x)}; }
  __device__ bool is_valid(WorkTile w) const { return w.index < work_; }

 private:
  int work_;
};

}  // namespace attnlab::flash
