#pragma once
// Which code computes attention. Each flash kernel is described once here, with the
// tile it works in: its source static_asserts its own tile against this entry, and
// the work list and the cost model ask for kernel_tile(kernel), so a kernel with
// another tile is scheduled and counted at its own tile with no new code. naive's
// GEMMs are cuBLAS's. Plain C++: any .cpp may include it.
#include <array>
#include <string>
#include <string_view>

#include "core/implementation.hpp"

namespace attnlab {

enum class FlashKernel { wgmma_sm90, mma_sm80 };

struct FlashKernelInfo {
  FlashKernel kernel;
  const char* name;            // as --kernel and the results' kernel column spell it
  TileShape tile;              // query rows x key columns of one CTA's tile
  int min_compute_capability;  // e.g. 80: any sm_80 or later GPU
  bool has_backward;           // a backward of its own over this kernel's work list and tile (run_flash_backward)
  // Whether a run with no --kernel may take this backward. A new backward stays behind
  // --kernel until every GPU test of it and compute-sanitizer have run on a GPU
  // (kernels/README.md says which have); then this turns true.
  bool default_backward;
};

// Fastest first: with no --kernel a run takes the first one the GPU supports.
inline constexpr std::array<FlashKernelInfo, 2> flash_kernels{{
    {FlashKernel::wgmma_sm90, "wgmma-sm90", {128, 128}, 90, true, true},  // Hopper: wgmma, TMA, producer and consumer warpgroups
    {FlashKernel::mma_sm80, "mma-sm80", {64, 64}, 80, true, true},          // the teaching kernel: mma.sync, ldmatrix, cp.async
}};

constexpr const FlashKernelInfo& flash_kernel_info(FlashKernel k) {
  for (const FlashKernelInfo& info : flash_kernels)
    if (info.kernel == k) return info;
  return flash_kernels.front();  // unreachable: every enumerator has an entry
}
constexpr TileShape kernel_tile(FlashKernel k) { return flash_kernel_info(k).tile; }

// What naive's row names as its kernel.
inline constexpr const char* naive_kernel_name = "cublas";

// The kernel column of an implementation's results row.
inline const char* kernel_name(Implementation implementation, FlashKernel flash) {
  return materializes_scores(implementation) ? naive_kernel_name : flash_kernel_info(flash).name;
}

// The kernel of that name; InputError naming `flag` for an unknown one.
FlashKernel parse_flash_kernel(std::string_view name, std::string_view flag = "--kernel");

// Whether this build holds the kernel's code (wgmma-sm90: only where the CUDA
// architectures include sm_90, kernels/CMakeLists.txt).
bool flash_kernel_built(FlashKernel k);

// The value of --kernel on a GPU of `compute_capability` (e.g. 90; an older one where
// ATTNLAB_LAUNCH_AS names one, kernels/launch_config.hpp): empty takes the
// fastest kernel it supports and this build holds (with `backward`, the fastest whose
// backward is a default_backward). Throws InputError naming `flag` for an unknown name or a kernel the
// GPU cannot run, the build lacks or that has no backward when one is asked for,
// NoGpuError when the GPU runs none of them.
FlashKernel choose_flash_kernel(std::string_view name, int compute_capability, std::string_view flag = "--kernel",
                                bool backward = false);

// "mma-sm80" (or "a, b"): the names --kernel takes, for help texts and errors.
std::string flash_kernel_names();

}  // namespace attnlab
