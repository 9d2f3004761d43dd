#pragma once
// One benchmark case: an implementation of a planned scenario at one dtype and head
// dim, made ready on the GPU as an AttentionRun (device layout and work list,
// naive's workspace) with several input sets, so that the timed region is one
// pass (forward, or backward over the forward's saved outputs) and nothing else.
#include <cstdint>
#include <memory>
#include <string>

#include "run/attention_run.hpp"

namespace attnlab::bench {

// The input sets of a case span this many bytes at least (Q, K, V and O each), so a
// forward pass never finds its inputs left in the 50 MB L2 of an H100 by the pass before.
inline constexpr std::int64_t rotation_bytes = 4 * 50 * 1024 * 1024;
inline constexpr int max_input_sets = 8;

struct CaseKey {
  std::shared_ptr<const ScenarioPlan> plan;  // dtype and head_dim already those of the case
  Implementation implementation = Implementation::varlen;
  Pass pass = Pass::fwd;

  const ImplementationCost& cost() const { return plan->model[implementation]; }
  // "varlen/uniform-64x512/bf16/d128", with "/bwd" for the backward: what --benchmark_filter matches
  std::string name() const;
};

// The case's run with its input sets filled from a pool of random values drawn with
// `seed`. Throws GpuMemoryError when the inputs or naive's workspace do not fit.
std::unique_ptr<AttentionRun> prepare_case(const CaseKey& key, std::uint64_t seed);

}  // namespace attnlab::bench
