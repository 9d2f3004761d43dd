#pragma once
// Forward passes timed as a training step runs them: queued back to back, one CUDA
// event between each pass and the next, so no pass waits for the host to launch it
// (timing one pass on an idle GPU would add the launch latency, ~10 µs, to it).
#include <vector>

#include "run/attention_run.hpp"

namespace attnlab::bench {

// How many passes to queue per batch: many for short passes, one for long ones,
// where the launch latency is lost in the pass anyway.
int passes_per_batch(double pass_us);

// Times `count` passes on input sets first_set, first_set + 1, ... Several short passes
// queue behind one untimed pass; a lone long pass needs none. Returns µs per timed pass.
std::vector<double> time_passes(AttentionRun& c, int first_set, int count);

}  // namespace attnlab::bench
