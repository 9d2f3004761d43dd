#pragma once
// The dQ arrival counters of a backward that finishes dQ itself (finishes_query_gradient),
// one per (position, query head), zeroed with Δ. At a step's first position, bits 0-11
// count the key tiles whose additions to the step's fp32 sums are known to have landed;
// the one that completes the count converts the sums in the kernel. A key tile's last
// steps add theirs as its CTA ends, without waiting for them to land: each sets
// kLateArrival at every position of the step, and the conversion pass after the kernel
// converts those positions. Plain C++: host and device.
namespace attnlab {

inline constexpr int kLateArrival = 1 << 12;  // above any count: a row of 512k tokens has 4,096 key tiles

}  // namespace attnlab
