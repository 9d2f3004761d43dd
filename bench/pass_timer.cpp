#include "bench/pass_timer.hpp"

#include "kernels/common/cuda_check.hpp"
#include "run/cuda_events.hpp"

namespace attnlab::bench {

int passes_per_batch(double pass_us) {
  if (pass_us < 2000) return 32;
  if (pass_us < 20000) return 4;
  return 1;
}

std::vector<double> time_passes(AttentionRun& c, int first_set, int count) {
  detail::CudaEvents events(count + 1);
  if (count > 1) c.launch(first_set + count);  // untimed: short timed passes queue behind it
  CUDA_CHECK(cudaEventRecord(events[0]));
  for (int i = 0; i < count; ++i) {
    c.launch(first_set + i);
    CUDA_CHECK(cudaEventRecord(events[i + 1]));
  }
  CUDA_CHECK(cudaEventSynchronize(events[count]));
  std::vector<double> us(count);
  for (int i = 0; i < count; ++i) us[i] = events.elapsed_us(i, i + 1);
  return us;
}

}  // namespace attnlab::bench
