#pragma once
// Which code computes attention. Each flash kernel is described once here, with the
// tile it works in: its source static_asserts its own tile against this entry, and
// the work list and the cost model ask for kernel_tile(kernel), so a kernel with
// another tile is scheduled and counted at its own tile with no new code. The rungs
// of wgmma-sm90's ladder (kernels/wgmma_sm90/rungs.hpp) are kernels of their own
// here, each with its own name, so a rung's results row never passes for the shipped
// kernel's; so are the rungs of its backward's ladder (the shipped forward and the rung's
// backward). naive's GEMMs are cuBLAS's. Plain C++: any .cpp may include it.
#include <array>
#include <string>
#include <string_view>

#include "core/layout/implementation.hpp"
#include "kernels/kernel_id.hpp"
#include "kernels/wgmma_sm90/rungs.hpp"

namespace attnlab {

struct FlashKernelInfo {
  FlashKernel kernel;
  const char* name;            // as --kernel and the results' kernel column spell it
  TileShape tile;              // query rows x key columns of one CTA's tile
  int min_compute_capability;  // e.g. 80: any sm_80 or later GPU
  bool has_backward;           // a backward of its own over this kernel's work list and tile (run_flash_backward)
  // Whether a run with no --kernel may take this backward. A new backward stays behind
  // --kernel until every GPU test of it and compute-sanitizer have run on a GPU; then
  // this turns true.
  bool default_backward;
  int rung;  // a rung of wgmma-sm90's forward ladder (from 1), which no run takes unless named; 0 for a kernel as shipped
  int backward_rung = 0;  // the same for the ladder of wgmma-sm90's backward
};

// Whether a run takes the kernel only when it is named: a rung of either ladder.
constexpr bool is_rung(const FlashKernelInfo& k) { return k.rung > 0 || k.backward_rung > 0; }

// The kernels as shipped fastest first (with no --kernel a run takes the first one the
// GPU supports), then the ladder's rungs.
inline constexpr std::array<FlashKernelInfo, 13> flash_kernels{{
    {FlashKernel::wgmma_sm90, "wgmma-sm90", {128, 128}, 90, true, true, 0},  // Hopper: wgmma, TMA, roles
    {FlashKernel::mma_sm80, "mma-sm80", {64, 64}, 80, true, true, 0},        // teaching: mma.sync, cp.async
    {FlashKernel::wgmma_sm90_rung1, "wgmma-sm90/rung1", {128, 128}, 90, false, false, 1},
    {FlashKernel::wgmma_sm90_rung2, "wgmma-sm90/rung2", {128, 128}, 90, false, false, 2},
    {FlashKernel::wgmma_sm90_rung3, "wgmma-sm90/rung3", {128, 128}, 90, false, false, 3},
    {FlashKernel::wgmma_sm90_rung4, "wgmma-sm90/rung4", {128, 128}, 90, false, false, 4},
    {FlashKernel::wgmma_sm90_rung5, "wgmma-sm90/rung5", {128, 128}, 90, false, false, 5},
    {FlashKernel::wgmma_sm90_rung6, "wgmma-sm90/rung6", {128, 128}, 90, false, false, 6},
    {FlashKernel::wgmma_sm90_bwd_rung1, "wgmma-sm90/bwd-rung1", {128, 128}, 90, true, false, 0, 1},
    {FlashKernel::wgmma_sm90_bwd_rung2, "wgmma-sm90/bwd-rung2", {128, 128}, 90, true, false, 0, 2},
    {FlashKernel::wgmma_sm90_bwd_rung3, "wgmma-sm90/bwd-rung3", {128, 128}, 90, true, false, 0, 3},
    {FlashKernel::wgmma_sm90_bwd_rung4, "wgmma-sm90/bwd-rung4", {128, 128}, 90, true, false, 0, 4},
    {FlashKernel::wgmma_sm90_bwd_rung5, "wgmma-sm90/bwd-rung5", {128, 128}, 90, true, false, 0, 5},
}};

// Whether the entries numbered by `which` (a ladder) are 1, 2, ... `count` in order, at
// wgmma-sm90's tile.
constexpr bool rungs_listed(int FlashKernelInfo::*which, int count) {
  int rung = 0;
  for (const FlashKernelInfo& k : flash_kernels)
    if (k.*which > 0 && (k.*which != ++rung || k.tile != flash_kernels.front().tile)) return false;
  return rung == count;
}
static_assert(rungs_listed(&FlashKernelInfo::rung, wgmma_sm90::forward_rung_count),
              "every rung of wgmma-sm90's ladder, in order, at wgmma-sm90's tile");
static_assert(rungs_listed(&FlashKernelInfo::backward_rung, wgmma_sm90::backward_rung_count),
              "every rung of wgmma-sm90's backward ladder, in order, at wgmma-sm90's tile");

constexpr const FlashKernelInfo& flash_kernel_info(FlashKernel k) {
  for (const FlashKernelInfo& info : flash_kernels)
    if (info.kernel == k) return info;
  return flash_kernels.front();  // unreachable: every enumerator has an entry
}
constexpr TileShape kernel_tile(FlashKernel k) { return flash_kernel_info(k).tile; }

// Whether the kernel's forward folds its output into running sums (AttentionViews::o_sums, a
// context-parallel rank's rounds): the shipped forwards do, and so does every rung built with
// their features; the forward ladder's other rungs store their output only.
constexpr bool folds_into_sums(const FlashKernelInfo& k) {
  return k.rung == 0 ||
         wgmma_sm90::forward_rungs[k.rung - 1].features == wgmma_sm90::shipped_features(wgmma_sm90::ladder_head_dim);
}

// What naive's row names as its kernel.
inline constexpr const char* naive_kernel_name = "cublas";

// The kernel column of an implementation's results row.
inline const char* kernel_name(Implementation implementation, FlashKernel flash) {
  return materializes_scores(implementation) ? naive_kernel_name : flash_kernel_info(flash).name;
}

// The kernel of that name; InputError naming `flag` for an unknown one.
FlashKernel parse_flash_kernel(std::string_view name, std::string_view flag = "--kernel");

// Whether this build holds the kernel's code (wgmma-sm90 and its rungs: only where the
// CUDA architectures include sm_90, kernels/CMakeLists.txt).
bool flash_kernel_built(FlashKernel k);

// The value of --kernel on a GPU of `compute_capability` (e.g. 90; an older one where
// ATTNLAB_LAUNCH_AS names one, kernels/common/launch_config.hpp): empty takes the
// fastest kernel it supports and this build holds (with `backward`, the fastest whose
// backward is a default_backward). Throws InputError naming `flag` for an unknown name or a kernel the
// GPU cannot run, the build lacks or that has no backward when one is asked for,
// NoGpuError when the GPU runs none of them.
FlashKernel choose_flash_kernel(std::string_view name, int compute_capability, std::string_view flag = "--kernel",
                                bool backward = false);

// "wgmma-sm90, mma-sm80, ...": the names --kernel takes, for help texts and errors.
std::string flash_kernel_names();

}  // namespace attnlab
