#pragma once
// How a kernel launches on a GPU: from the device's limits and the kernel's needs,
// the shared memory it asks for, whether it must opt in beyond the default per-CTA
// limit, and how many CTAs fit on one multiprocessor (occupancy). Plain C++, no
// CUDA types: kernels/common/launch.cuh fills the structs from cudaDeviceGetAttribute
// and cudaFuncGetAttributes, the CPU tests from each architecture's published limits.
// The rules follow the CUDA occupancy calculator (cuda_occupancy.h) for sm_80 and newer.
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// The teaching kernel needs mma.sync on bf16, ldmatrix and cp.async: sm_80 (Ampere) or newer.
inline constexpr int oldest_compute_capability = 80;

// What one GPU offers; bytes, registers and threads as cudaDeviceGetAttribute names them.
struct DeviceLimits {
  int compute_capability = 0;  // 86 for 8.6
  int sm_count = 0;
  int shared_per_sm = 0;              // MaxSharedMemoryPerMultiprocessor
  int shared_per_block = 0;           // MaxSharedMemoryPerBlock: without opting in (48 KB)
  int shared_per_block_optin = 0;     // MaxSharedMemoryPerBlockOptin
  int shared_reserved_per_block = 0;  // ReservedSharedMemoryPerBlock: the driver's own, per CTA
  int registers_per_sm = 0;
  int registers_per_block = 0;
  int threads_per_sm = 0;
  int threads_per_block = 0;
  int blocks_per_sm = 0;  // MaxBlocksPerMultiprocessor
};

// What one kernel asks for per CTA.
struct KernelNeeds {
  std::string name;  // e.g. "mma-sm80 bf16 d128", for messages
  int threads = 0;
  int registers = 0;       // per thread, as compiled for this GPU (cudaFuncAttributes::numRegs)
  int static_shared = 0;   // bytes
  int dynamic_shared = 0;  // bytes
};

struct LaunchConfig {
  int dynamic_shared = 0;  // bytes to launch with
  bool opt_in = false;     // dynamic_shared exceeds the default per-CTA limit: set MaxDynamicSharedMemorySize first
  int shared_per_cta = 0;  // what a CTA takes from the multiprocessor: static + dynamic + reserved, rounded up
  int ctas_per_sm = 0;     // at least 1
  int resident_ctas = 0;   // ctas_per_sm × SMs: the size of a persistent grid
  std::string limited_by;  // the resources that cap ctas_per_sm, e.g. "shared memory and registers"
};

// The configuration a kernel launches with on a GPU of these limits. Throws
// NoGpuError (exit 3) naming the kernel, the resource, what it needs and what the
// GPU allows when not even one CTA fits.
LaunchConfig choose_launch(const DeviceLimits& device, const KernelNeeds& kernel);

// One line for `attnlab run`: CTAs per SM, what limits them, the resources behind it.
std::string describe_launch(const DeviceLimits& device, const KernelNeeds& kernel, const LaunchConfig& config);

// The published per-SM and per-CTA limits of sm_80 (A100), sm_86 (RTX 30, A10, A40),
// sm_89 (RTX 40, L4, L40) and sm_90 (H100); sm_count is 0. Empty for any other.
std::optional<DeviceLimits> architecture_limits(int compute_capability);

// The environment variable that computes every launch configuration as on another
// architecture: ATTNLAB_LAUNCH_AS=sm_86 runs the kernels on this GPU with at most the
// per-SM and per-CTA limits of an sm_86 (each limit the smaller of the two), so an
// H100 shows what an RTX 3090's shared memory allows.
inline constexpr const char* launch_as_variable = "ATTNLAB_LAUNCH_AS";

// The limits to configure launches with: `device`'s own when `launch_as` (the
// variable's value) is null or empty, else capped as above. Throws InputError
// naming the variable and the accepted values on anything but sm_80/86/89/90.
DeviceLimits limits_for_launch(const DeviceLimits& device, const char* launch_as);

// The launch lines of this process not handed out yet, oldest first. A launcher
// records its line when it first configures a kernel; `attnlab run` prints them.
void record_launch(std::string line);
std::vector<std::string> take_launch_records();

}  // namespace attnlab
