#pragma once
// Launch configuration of every flash kernel from the device's limits (launch_config.hpp),
// once per kernel and process, and the one launch every flash kernel goes through.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "core/io/input_error.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/launch_config.hpp"

namespace attnlab::flash {

// The limits of the current device, as launch_config.hpp names them.
inline DeviceLimits current_device_limits() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto get = [device](cudaDeviceAttr attribute) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
  };
  DeviceLimits d;
  d.compute_capability = get(cudaDevAttrComputeCapabilityMajor) * 10 + get(cudaDevAttrComputeCapabilityMinor);
  d.sm_count = get(cudaDevAttrMultiProcessorCount);
  d.shared_per_sm = get(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  d.shared_per_block = get(cudaDevAttrMaxSharedMemoryPerBlock);
  d.shared_per_block_optin = get(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  d.shared_reserved_per_block = get(cudaDevAttrReservedSharedMemoryPerBlock);
  d.registers_per_sm = get(cudaDevAttrMaxRegistersPerMultiprocessor);
  d.registers_per_block = get(cudaDevAttrMaxRegistersPerBlock);
  d.threads_per_sm = get(cudaDevAttrMaxThreadsPerMultiProcessor);
  d.threads_per_block = get(cudaDevAttrMaxThreadsPerBlock);
  d.blocks_per_sm = get(cudaDevAttrMaxBlocksPerMultiprocessor);
  return d;
}

// The kernel as compiled for this device; a build without code this GPU can run says so.
template <typename Kernel>
cudaFuncAttributes kernel_attributes(Kernel* kernel, int compute_capability) {
  cudaFuncAttributes a{};
  const cudaError_t err = cudaFuncGetAttributes(&a, kernel);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    throw NoGpuError("this build has no code for this GPU (compute capability " +
                     std::to_string(compute_capability / 10) + "." + std::to_string(compute_capability % 10) +
                     "; built for CUDA architectures " ATTNLAB_CUDA_ARCHITECTURES
                     "): rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
                     std::to_string(compute_capability));
  }
  CUDA_CHECK(err);
  return a;
}

// Configured once per kernel and process from the device's limits (or those that
// ATTNLAB_LAUNCH_AS names), recorded for `attnlab run` to print. `what` names the
// kernel in that line, e.g. "mma-sm80 bf16 d128".
template <auto Kernel>
const LaunchConfig& launch_config_of(const std::string& what, int threads, int dynamic_shared) {
  static const LaunchConfig config = [&] {
    const DeviceLimits device = current_device_limits();
    const char* launch_as = std::getenv(launch_as_variable);
    const DeviceLimits limits = limits_for_launch(device, launch_as);
    const cudaFuncAttributes a = kernel_attributes(Kernel, device.compute_capability);
    const KernelNeeds needs{what, threads, a.numRegs, static_cast<int>(a.sharedSizeBytes), dynamic_shared};
    const LaunchConfig c = choose_launch(limits, needs);
    if (c.opt_in)
      CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, c.dynamic_shared));
    // Limits of a smaller GPU: the SM also keeps no more shared memory than that GPU's
    // (the driver rounds the percentage up to a size it supports), so no more CTAs share it.
    if (limits.shared_per_sm < device.shared_per_sm)
      CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      100 * limits.shared_per_sm / device.shared_per_sm));
    int runtime_ctas = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime_ctas, Kernel, threads, c.dynamic_shared));
    std::string line = describe_launch(limits, needs, c) + "; code sm_" + std::to_string(a.binaryVersion) +
                       " from compute_" + std::to_string(a.ptxVersion) + " PTX";
    if (launch_as && *launch_as) line += std::string("; limits of ") + launch_as + " (" + launch_as_variable + ")";
    line += runtime_ctas == c.ctas_per_sm ? "; the CUDA runtime agrees"
                                          : "; the CUDA runtime says " + std::to_string(runtime_ctas) + " per SM";
    record_launch(std::move(line));
    return c;
  }();
  return config;
}

// Launches Kernel(params(), scheduler) on `stream`, `threads` per CTA, with the grid the
// scheduler asks for (none where there is no work: `params` is called only then, as the
// Hopper forward's tensor maps need positions) and the configuration launch_config_of gives.
// A persistent grid leaves `sm_margin` SMs' CTA slots free, keeping at least one SM's.
template <auto Kernel, typename Scheduler, typename MakeParams>
void launch_scheduled(const std::string& what, int threads, int dynamic_shared, const Scheduler& scheduler,
                      cudaStream_t stream, MakeParams&& params, int sm_margin = 0) {
  const LaunchConfig& config = launch_config_of<Kernel>(what, threads, dynamic_shared);
  const int grid =
      scheduler.grid_size(std::max(config.ctas_per_sm, config.resident_ctas - config.ctas_per_sm * sm_margin));
  if (grid == 0) return;
  scheduler.prepare(stream);
  Kernel<<<grid, threads, config.dynamic_shared, stream>>>(params(), scheduler);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::flash
