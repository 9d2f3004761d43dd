#pragma once
// The Hopper backward's parameters: the flash backwards' own plus the tensor map its
// bulk reductions add dQ through: the fp32 accumulator as [position][head][d], boxes of
// kStepQueries positions x 32 floats (128 bytes: the 128-byte swizzle's row).
#include <cuda.h>  // CUtensorMap

#include "kernels/common/params.cuh"

namespace attnlab::wgmma_sm90 {

inline constexpr int kQueryGradientBoxFloats = 128 / int(sizeof(float));

struct BackwardParams {
  flash::BackwardParams flash;
  CUtensorMap dq_map;  // unused by a backward without dq_bulk_reduce
};

}  // namespace attnlab::wgmma_sm90
