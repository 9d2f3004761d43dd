#pragma once
// The ladder of the Hopper forward kernel: each rung is the one before it plus one
// idea, the last is the kernel as shipped. Built for bf16 at head dim 128 only (the
// ladder's configuration); a rung is a kernel of its own to run and to record:
// `--kernel wgmma-sm90/rung3` (kernels/kernel_choice.hpp).
#include <cstddef>
#include <iterator>

#include "kernels/wgmma_sm90/features.hpp"

namespace attnlab::wgmma_sm90 {

inline constexpr int ladder_head_dim = 128;

struct ForwardRung {
  const char* idea;  // what this rung adds to the one before
  ForwardFeatures features;
};

inline constexpr ForwardRung forward_rungs[] = {
    {"wgmma, TMA and a producer warp beside two consumer warpgroups; 1 K/V stage, 1 Q buffer, "
     "static persistent schedule",
     {1, false, false, false, false}},
    {"a ring of 2 K/V stages: the next key tile loads while this one is read", {2, false, false, false, false}},
    {"two Q buffers: the epilogue overlaps the next item's loads", {2, true, false, false, false}},
    {"items from an atomic counter after each CTA's first", {2, true, true, false, false}},
    {"softmax of S_j overlapped with P_{j-1}·V_{j-1} inside a warpgroup", {2, true, true, true, false}},
    {"the two consumers take turns to issue their wgmmas (as shipped)", {2, true, true, true, true}},
};
inline constexpr int forward_rung_count = static_cast<int>(std::size(forward_rungs));

// How many of the five ideas two feature sets set differently.
constexpr int ideas_apart(const ForwardFeatures& a, const ForwardFeatures& b) {
  return (a.kv_stages != b.kv_stages) + (a.two_q_buffers != b.two_q_buffers) +
         (a.counter_schedule != b.counter_schedule) + (a.overlap_softmax != b.overlap_softmax) +
         (a.consumer_turns != b.consumer_turns);
}

// Whether each rung of a ladder sets one idea differently from the rung before.
template <typename Rung, std::size_t n>
constexpr bool one_idea_per_rung(const Rung (&rungs)[n]) {
  for (std::size_t i = 1; i < n; ++i)
    if (ideas_apart(rungs[i - 1].features, rungs[i].features) != 1) return false;
  return true;
}
static_assert(one_idea_per_rung(forward_rungs), "each rung adds one idea to the one before");
static_assert(forward_rungs[forward_rung_count - 1].features == shipped_features(ladder_head_dim),
              "the last rung is the kernel as shipped");

// The backward's ladder, the same way: each rung one idea more than the one before, the
// last the backward as shipped; a rung runs the shipped forward and its own backward
// (`--kernel wgmma-sm90/bwd-rung2`), bf16 at head dim ladder_head_dim only.
struct BackwardRung {
  const char* idea;
  BackwardFeatures features;
};

inline constexpr BackwardRung backward_rungs[] = {
    {"two warpgroups of 64 keys per 128-key tile, the five products by wgmma, steps of 64 queries; "
     "dQ added by 8-byte reductions from registers",
     {false, false, false, false}},
    {"dQ staged in shared memory and added by TMA bulk reductions, one thread per warpgroup",
     {true, false, false, false}},
    {"warp specialization: a producer warpgroup loads Q, dO and the query info by TMA into a ring of "
     "two stages and adds dQ by the bulk reductions; the consumers take 224 registers and meet once a step",
     {true, true, false, false}},
    {"persistent CTAs, one per SM, items from an atomic counter: the next item's K, V and first steps "
     "load while this item's dK and dV leave",
     {true, true, true, false}},
    {"the first dQ to reach each block of the sums stored, the rest added: the Δ pass clears only the "
     "sums no step writes",
     {true, true, true, true}},
};
inline constexpr int backward_rung_count = static_cast<int>(std::size(backward_rungs));

constexpr int ideas_apart(const BackwardFeatures& a, const BackwardFeatures& b) {
  return (a.dq_bulk_reduce != b.dq_bulk_reduce) + (a.warp_specialized != b.warp_specialized) +
         (a.persistent != b.persistent) + (a.dq_first_store != b.dq_first_store);
}

static_assert(one_idea_per_rung(backward_rungs), "each backward rung adds one idea to the one before");
static_assert(backward_rungs[backward_rung_count - 1].features == shipped_backward_features(),
              "the backward's last rung is the backward as shipped");

}  // namespace attnlab::wgmma_sm90
