#pragma once
// The flash kernels by name, for the host API (kernels/attention.hpp) to take one without
// the table that describes them (kernels/kernel_choice.hpp: tile, compute capability,
// backward, the Hopper ladder's rungs). Plain C++.

namespace attnlab {

enum class FlashKernel {
  wgmma_sm90,
  mma_sm80,
  wgmma_sm90_rung1,
  wgmma_sm90_rung2,
  wgmma_sm90_rung3,
  wgmma_sm90_rung4,
  wgmma_sm90_rung5,
  wgmma_sm90_rung6,
  wgmma_sm90_bwd_rung1,
  wgmma_sm90_bwd_rung2,
  wgmma_sm90_bwd_rung3,
  wgmma_sm90_bwd_rung4,
  wgmma_sm90_bwd_rung5,
};

}  // namespace attnlab
