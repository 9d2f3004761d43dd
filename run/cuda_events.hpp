#pragma once
// A set of CUDA events, destroyed however the timing that uses them ends.
#include <cuda_runtime.h>

#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace attnlab::detail {

class CudaEvents {
 public:
  explicit CudaEvents(int n) {
    events_.reserve(n);
    try {
      for (int i = 0; i < n; ++i) {
        cudaEvent_t e = nullptr;
        CUDA_CHECK(cudaEventCreate(&e));
        events_.push_back(e);
      }
    } catch (...) {  // no destructor runs for a half-made object: free the events made so far
      destroy();
      throw;
    }
  }
  ~CudaEvents() { destroy(); }
  CudaEvents(const CudaEvents&) = delete;
  CudaEvents& operator=(const CudaEvents&) = delete;

  cudaEvent_t operator[](int i) const { return events_[i]; }
  // Microseconds from event `from` to event `to` (both recorded and complete).
  double elapsed_us(int from, int to) const {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return 1000.0 * ms;
  }

 private:
  void destroy() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    events_.clear();
  }
  std::vector<cudaEvent_t> events_;
};

}  // namespace attnlab::detail
