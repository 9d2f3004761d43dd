#pragma once
// The Hopper kernel's entry point for run_flash (kernels/flash.cu): the same
// parameters as the teaching kernel's, plus the buffer's positions for the tensor maps.
// ATTNLAB_WGMMA_RUNG puts a rung of the kernel's ladder in the shipped kernel's place
// (flash_wgmma_rung_variable.hpp).
#include <cstdint>

#include "kernels/flash_kernel.cuh"

namespace attnlab::hopper {

inline constexpr int kRows = 128;  // query rows per tile (kernel_tile(FlashKernel::wgmma_sm90).rows)
inline constexpr int kCols = 128;  // keys per tile (kernel_tile(FlashKernel::wgmma_sm90).cols)

template <typename T, int D>
void launch_forward(const flash::Params& params, int work_items, std::int64_t positions);

}  // namespace attnlab::hopper
