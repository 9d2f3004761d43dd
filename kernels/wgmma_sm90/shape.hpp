#pragma once
// The Hopper kernel's shape: its tile and who is in a CTA (plain C++, for the host's
// static_asserts too). A forward CTA is three warpgroups: the producer and two
// consumers of 64 query rows each (a wgmma is 64 rows high); a backward CTA the same
// three, its consumers 64 keys each (on the backward ladder's first rungs, two
// warpgroups that also copy).

namespace attnlab::wgmma_sm90 {

inline constexpr int kRows = 128;  // query rows per tile (kernel_tile(FlashKernel::wgmma_sm90).rows)
inline constexpr int kCols = 128;  // keys per tile (kernel_tile(FlashKernel::wgmma_sm90).cols)
inline constexpr int kWarpgroup = 128;
inline constexpr int kConsumers = 2;                              // warpgroups of 64 query rows
inline constexpr int kConsumerThreads = kConsumers * kWarpgroup;  // what an "empty" barrier waits for
inline constexpr int kThreads = kWarpgroup + kConsumerThreads;
// 56 x 128 + 224 x 256 registers fit the CTA's 384 x 168: the forward's consumers hold
// S (64 per thread), O (D/2) and P (32), the warp-specialized backward's dK and dV (D/2
// each), Sᵀ and dPᵀ (32 each), P and dS as operands (16 each) and dQ (32); the producers
// compute addresses and fill the tiles that cross a row's end (with 40 they spilled).
inline constexpr int kProducerRegisters = 56;
inline constexpr int kConsumerRegisters = 224;

inline constexpr int kStepQueries = 64;  // the backward's queries per step: half a query tile, a wgmma's height for dQ
inline constexpr int kKeysPerWarpgroup = kCols / 2;
inline constexpr int kBackwardThreads = 2 * kWarpgroup;  // the ladder's first rungs

}  // namespace attnlab::wgmma_sm90
