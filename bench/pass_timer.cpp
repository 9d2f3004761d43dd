#include "bench/pass_timer.hpp"

#include "kernels/cuda_check.hpp"

namespace attnlab::bench {

namespace {

class Events {
 public:
  explicit Events(int n) : events_(n) {
    for (auto& e : events_) CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Events() {
    for (auto& e : events_) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t operator[](int i) const { return events_[i]; }

 private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace

int passes_per_batch(double pass_us) {
  if (pass_us < 2000) return 32;
  if (pass_us < 20000) return 4;
  return 1;
}

std::vector<double> time_passes(PreparedCase& c, int first_set, int count) {
  Events events(count + 1);
  if (count > 1) c.launch(first_set + count);  // untimed: short timed passes queue behind it
  CUDA_CHECK(cudaEventRecord(events[0]));
  for (int i = 0; i < count; ++i) {
    c.launch(first_set + i);
    CUDA_CHECK(cudaEventRecord(events[i + 1]));
  }
  CUDA_CHECK(cudaEventSynchronize(events[count]));
  std::vector<double> us(count);
  for (int i = 0; i < count; ++i) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events[i], events[i + 1]));
    us[i] = 1000.0 * ms;
  }
  return us;
}

}  // namespace attnlab::bench
