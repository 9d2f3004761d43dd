#pragma once
// The Hopper backward's parameters: the flash backwards' own plus its tensor maps: the
// fp32 dQ accumulator its bulk reductions add to, as [position][head][d] in boxes of
// kStepQueries positions x 32 floats (128 bytes: the 128-byte swizzle's row); and, for
// the warp-specialized backward's producer, Q and dO in boxes of one step (kStepQueries
// positions) and K and V in boxes of one key tile.
#include <cuda.h>  // CUtensorMap

#include "kernels/common/params.cuh"

namespace attnlab::wgmma_sm90 {

inline constexpr int kQueryGradientBoxFloats = 128 / int(sizeof(float));

struct BackwardParams {
  flash::BackwardParams flash;
  CUtensorMap dq_map;                       // unused by a backward without dq_bulk_reduce
  CUtensorMap q_map, do_map, k_map, v_map;  // unused by a backward without warp_specialized
};

}  // namespace attnlab::wgmma_sm90
