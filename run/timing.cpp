#include "run/timing.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "core/io/input_error.hpp"
#ifdef ATTNLAB_HAS_CUDA
#include "kernels/common/cuda_check.hpp"
#include "run/cuda_events.hpp"
#endif

namespace attnlab {

GpuTiming timing_of(std::vector<double> us) {
  if (us.empty()) throw std::invalid_argument("timing_of: no timed runs");
  std::sort(us.begin(), us.end());
  const std::size_t n = us.size();
  GpuTiming t;
  t.reps = static_cast<int>(n);
  t.min_us = us.front();
  t.max_us = us.back();
  t.median_us = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
  return t;
}

#ifdef ATTNLAB_HAS_CUDA
GpuTiming time_on_gpu(const std::function<void()>& launch, int warmup, int reps) {
  if (reps <= 0) throw std::invalid_argument("time_on_gpu: reps must be positive");
  for (int i = 0; i < warmup; ++i) launch();
  detail::CudaEvents events(2 * reps);
  for (int i = 0; i < reps; ++i) {
    CUDA_CHECK(cudaEventRecord(events[2 * i]));
    launch();
    CUDA_CHECK(cudaEventRecord(events[2 * i + 1]));
  }
  CUDA_CHECK(cudaEventSynchronize(events[2 * reps - 1]));
  std::vector<double> us(reps);
  for (int i = 0; i < reps; ++i) us[i] = events.elapsed_us(2 * i, 2 * i + 1);
  return timing_of(std::move(us));
}

#else
GpuTiming time_on_gpu(const std::function<void()>&, int, int) { throw NoGpuError("this build has no CUDA support"); }
#endif

}  // namespace attnlab
