#pragma once
// The forward's rings of shared-memory buffers: the Q buffers and the K and V stages.
// Each buffer is guarded by a "full" mbarrier (its bytes landed) and an "empty" one (both
// consumers are done with it). Producer and consumers each walk a ring with a
// PipelineState, the buffer of their current use and its phase, and wait through the
// ring, so both sides take their barriers' parities from one place.
#include <cstdint>

#include "kernels/wgmma_sm90/ptx.cuh"

namespace attnlab::wgmma_sm90 {

// Where a role is in a ring of `stages` buffers: use n of the ring sits in stage n % stages,
// that stage's (n / stages)th use. A barrier's phase flips each time it completes, once
// per use of its stage, so the use's parity is the phase to wait for (with one stage,
// every use flips it).
template <int stages>
class PipelineState {
 public:
  __device__ int stage() const { return static_cast<int>(uses_ % stages); }
  __device__ int phase() const { return static_cast<int>((uses_ / stages) & 1); }
  __device__ void advance(unsigned uses = 1) { uses_ += uses; }
  // The use `uses` after this one: a role with several uses in flight (the consumers read
  // V_{j-1} beside K_j) keeps one state and reads each use from it.
  __device__ PipelineState ahead(unsigned uses) const {
    PipelineState later = *this;
    later.advance(uses);
    return later;
  }

 private:
  unsigned uses_ = 0;
};

// The full and empty mbarriers of a ring's stages: stage s's are barriers[full + s] and
// barriers[empty + s].
template <int stages>
struct BarrierRing {
  using State = PipelineState<stages>;
  std::uint64_t* barriers;
  int full, empty;

  // One thread, before any use: `producers` arrivals fill a stage, `consumers` empty it.
  __device__ void init(int producers, int consumers) const {
    for (int s = 0; s < stages; ++s) {
      barrier_init(barriers + full + s, producers);
      barrier_init(barriers + empty + s, consumers);
    }
  }
  __device__ std::uint64_t* full_barrier(const State& state) const { return barriers + full + state.stage(); }
  // The producer waits for the consumers to have released the stage's previous use (at
  // its first use at once: a fresh barrier counts the phase before its first as complete).
  __device__ void wait_empty(const State& state) const {
    barrier_wait(barriers + empty + state.stage(), state.phase() ^ 1);
  }
  // A consumer waits for this use's bytes to have landed.
  __device__ void wait_full(const State& state) const { barrier_wait(full_barrier(state), state.phase()); }
  // A consumer thread is done with this use of the stage.
  __device__ void release(const State& state) const { barrier_arrive(barriers + empty + state.stage()); }
};

}  // namespace attnlab::wgmma_sm90
