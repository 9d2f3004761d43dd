#pragma once
// The Hopper forward's parameters: the flash kernels' own plus the three tensor maps
// TMA reads through: Q, K and V as [position][head][d], boxes of 128 positions x 64 elements.
#include <cuda.h>  // CUtensorMap

#include "kernels/common/params.cuh"

namespace attnlab::wgmma_sm90 {

struct Params {
  flash::Params flash;
  CUtensorMap q_map, k_map, v_map;
};

}  // namespace attnlab::wgmma_sm90
