#pragma once
// The teaching kernel's shape: its tile and its CTA (plain C++, for the host's
// static_asserts too). One CTA = 4 warps = 64 query rows of one head; each warp owns 16.

namespace attnlab::mma_sm80 {

inline constexpr int kRows = 64;  // query rows per CTA (kernel_tile(FlashKernel::mma_sm80).rows)
inline constexpr int kCols = 64;  // keys per tile (kernel_tile(FlashKernel::mma_sm80).cols)
inline constexpr int kWarps = kRows / 16;
inline constexpr int kThreads = kWarps * 32;

}  // namespace attnlab::mma_sm80
