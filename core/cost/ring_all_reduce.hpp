#pragma once
// The ring all-reduce that averages a data-parallel step's gradients over N GPUs (NCCL's ring
// algorithm): each GPU's B bytes are cut into N chunks; in N − 1 steps of a reduce-scatter each GPU
// sends a chunk to the next and adds the one it receives, then in N − 1 steps of an all-gather the
// reduced chunks go round once more. Each GPU sends, and receives, 2(N − 1)/N × B bytes in 2(N − 1)
// steps. Formulas: core/cost/README.md, "Data parallelism".

namespace attnlab {

struct RingAllReduce {
  int gpus = 1;
  double bytes = 0;  // each GPU's gradients (core/cost/step_bytes.hpp: parameter_bytes)

  int steps() const { return 2 * (gpus - 1); }
  double bytes_per_gpu() const { return 2.0 * (gpus - 1) / gpus * bytes; }  // sent, and as many received
  // NCCL's bus bandwidth, bytes per second: what each GPU's link carried while the all-reduce took `us`.
  double bus_bandwidth(double us) const { return bytes_per_gpu() / (us * 1e-6); }
  // µs at a bus bandwidth of `bytes_per_second`.
  double time_us(double bytes_per_second) const { return bytes_per_gpu() / bytes_per_second * 1e6; }
};

}  // namespace attnlab
