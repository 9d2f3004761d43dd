#pragma once
// Timing a pass on the GPU: CUDA events around each run, and their median, min and max.
#include <functional>
#include <vector>

namespace attnlab {

struct GpuTiming {
  double median_us = 0, min_us = 0, max_us = 0;
  int reps = 0;
};

// Median, min and max of timed runs (µs); `us` must not be empty.
GpuTiming timing_of(std::vector<double> us);

// Times `launch` with CUDA events around each of `reps` runs after `warmup` runs.
// Throws NoGpuError in a build without CUDA.
GpuTiming time_on_gpu(const std::function<void()>& launch, int warmup, int reps);

}  // namespace attnlab
