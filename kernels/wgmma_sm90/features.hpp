#pragma once
// The ideas of the Hopper forward kernel that can be switched off at compile time,
// so that its ladder (kernels/wgmma_sm90/README.md, "The ladder") measures one idea per
// step: forward<T, D, F> with F = shipped_features(D) is the kernel as shipped; the
// rungs (rungs.hpp) leave ideas out. Plain C++, no CUDA types.
#include <string>

namespace attnlab::wgmma_sm90 {

struct ForwardFeatures {
  // K/V tiles in the ring. With 1 the producer cannot load tile j+1 while the
  // consumers still read tile j.
  int kv_stages;
  // Two Q buffers: the next item's Q lands while this item computes and stores
  // its output (the epilogue overlaps the next item's loads). With one, the
  // producer waits for the consumers to release the buffer.
  bool two_q_buffers;
  // After its first item, a CTA takes the next from an atomic counter (a CTA that
  // drew light items takes more); without, CTA b takes b, b + gridDim.x, ...
  bool counter_schedule;
  // The softmax of S_j runs while the tensor cores add P_{j-1}·V_{j-1} into O;
  // without, the consumer waits for both products before the softmax.
  bool overlap_softmax;
  // The two consumer warpgroups take turns to issue their wgmmas (named barriers).
  bool consumer_turns;

  friend constexpr bool operator==(const ForwardFeatures&, const ForwardFeatures&) = default;
};

// What the kernel does as shipped: every idea, 2 K/V stages at D=128 (shared
// memory holds no third beside two Q tiles), 4 at D=64.
constexpr ForwardFeatures shipped_features(int head_dim) { return {head_dim == 128 ? 2 : 4, true, true, true, true}; }

// The features as one int, and back: a __global__ template cannot take a class-type
// parameter (nvcc's host stubs spell template arguments out), so the kernel takes this.
constexpr int features_key(const ForwardFeatures& f) {
  return f.kv_stages | f.two_q_buffers << 8 | f.counter_schedule << 9 | f.overlap_softmax << 10 |
         f.consumer_turns << 11;
}
constexpr ForwardFeatures features_of_key(int key) {
  return {key & 0xff, bool(key >> 8 & 1), bool(key >> 9 & 1), bool(key >> 10 & 1), bool(key >> 11 & 1)};
}
static_assert(features_of_key(features_key(shipped_features(64))) == shipped_features(64));

// "kv_stages 1, two_q_buffers no, ...": the features as a log names them.
inline std::string describe_features(const ForwardFeatures& f) {
  const auto yes_no = [](bool on) { return on ? "yes" : "no"; };
  return "kv_stages " + std::to_string(f.kv_stages) + ", two_q_buffers " + yes_no(f.two_q_buffers) +
         ", counter_schedule " + yes_no(f.counter_schedule) + ", overlap_softmax " + yes_no(f.overlap_softmax) +
         ", consumer_turns " + yes_no(f.consumer_turns);
}

// The ideas of the Hopper backward that can be switched off, for its ladder as the
// forward's: backward<T, D, key, counting> with key = backward_features_key of
// shipped_backward_features() is the backward as shipped.
struct BackwardFeatures {
  // dQ of a step is staged in shared memory and added to the fp32 accumulator by TMA
  // bulk reductions, a few instructions from one thread per warpgroup; without, every
  // thread adds its dQ values by 8-byte reductions (16 a thread a step).
  bool dq_bulk_reduce;
  // A producer warpgroup beside the two that compute: one warp loads each step's Q, dO
  // and query info by TMA into a ring of mbarrier-guarded stages, another adds the
  // staged dQ by the bulk reductions; the two consumers take the producer's registers
  // (224 each) and meet once a step. Without, the two warpgroups copy every tile
  // themselves (cp.async) and meet at two CTA barriers a step. Needs dq_bulk_reduce.
  bool warp_specialized;
  // One CTA per SM, taking items from an atomic counter (the forward's scheduler), so that
  // the next item's K, V and first steps load while this item's dK and dV are staged and
  // stored (beside dSᵀ and dQ, not in the Q and dO stages the next steps fill), and launching
  // a CTA, its barriers and its tensor maps are paid once per SM. Without, one CTA per item.
  // Needs warp_specialized.
  bool persistent;
  // The writer stores the first dQ to reach each block of the fp32 sums (an arrival count per
  // block) and adds the later ones, each row's own rows only, so the Δ pass need not clear the
  // sums first (it clears only rows that attend nothing); the later writers wait until the
  // first store has landed. Without, every dQ is added into sums the Δ pass cleared. Needs
  // warp_specialized.
  bool dq_first_store;

  friend constexpr bool operator==(const BackwardFeatures&, const BackwardFeatures&) = default;
};

constexpr BackwardFeatures shipped_backward_features() { return {true, true, true, true}; }

constexpr int backward_features_key(const BackwardFeatures& f) {
  return int(f.dq_bulk_reduce) | int(f.warp_specialized) << 1 | int(f.persistent) << 2 | int(f.dq_first_store) << 3;
}
constexpr BackwardFeatures backward_features_of_key(int key) {
  return {bool(key & 1), bool(key >> 1 & 1), bool(key >> 2 & 1), bool(key >> 3 & 1)};
}
static_assert(backward_features_of_key(backward_features_key(shipped_backward_features())) ==
              shipped_backward_features());

inline std::string describe_features(const BackwardFeatures& f) {
  const auto yes_no = [](bool on) { return on ? "yes" : "no"; };
  return std::string("dq_bulk_reduce ") + yes_no(f.dq_bulk_reduce) + ", warp_specialized " +
         yes_no(f.warp_specialized) + ", persistent " + yes_no(f.persistent) + ", dq_first_store " +
         yes_no(f.dq_first_store);
}

}  // namespace attnlab::wgmma_sm90
