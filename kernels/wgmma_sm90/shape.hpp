#pragma once
// The Hopper kernel's shape: its tile and who is in a CTA (plain C++, for the host's
// static_asserts too). A forward CTA is three warpgroups: the producer and two
// consumers of 64 query rows each (a wgmma is 64 rows high); a backward CTA two
// warpgroups of 64 keys each.

namespace attnlab::wgmma_sm90 {

inline constexpr int kRows = 128;  // query rows per tile (kernel_tile(FlashKernel::wgmma_sm90).rows)
inline constexpr int kCols = 128;  // keys per tile (kernel_tile(FlashKernel::wgmma_sm90).cols)
inline constexpr int kWarpgroup = 128;
inline constexpr int kConsumers = 2;                              // warpgroups of 64 query rows
inline constexpr int kConsumerThreads = kConsumers * kWarpgroup;  // what an "empty" barrier waits for
inline constexpr int kThreads = kWarpgroup + kConsumerThreads;
// 56 x 128 + 224 x 256 registers fit the CTA's 384 x 168: the consumers hold S
// (64 per thread), O (D/2) and P (32); the producer computes addresses and fills
// the tiles that cross a row's end (with 40 it spilled).
inline constexpr int kProducerRegisters = 56;
inline constexpr int kConsumerRegisters = 224;

inline constexpr int kStepQueries = 64;  // the backward's queries per step: half a query tile, a wgmma's height for dQ
inline constexpr int kKeysPerWarpgroup = kCols / 2;
inline constexpr int kBackwardThreads = 2 * kWarpgroup;

}  // namespace attnlab::wgmma_sm90
