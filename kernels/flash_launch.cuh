#pragma once
#include <algorithm>
#include <stdexcept>

#include "kernels/cuda_check.hpp"
#include "kernels/flash_launch.hpp"

namespace attnlab::flash {

// A persistent grid: as many CTAs as fit on the GPU at once, each walking the work list.
template <typename T, int D>
void launch_forward(const Params& params, int work_items) {
  static int resident_ctas = 0;  // per kernel and per process: configure and ask once
  if (resident_ctas == 0) {
    CUDA_CHECK(cudaFuncSetAttribute(forward<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<D>()));
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, forward<T, D>, kThreads, smem_bytes<D>()));
    if (per_sm == 0) throw std::runtime_error("flash: the kernel does not fit on a multiprocessor");
    resident_ctas = sms * per_sm;
  }
  const long long items = static_cast<long long>(work_items) * params.heads;
  if (items == 0) return;
  if (items > 0x7fffffffLL) throw std::runtime_error("flash: more work items than an int can count");
  const int blocks = static_cast<int>(std::min<long long>(items, resident_ctas));
  forward<T, D><<<blocks, kThreads, smem_bytes<D>()>>>(params, static_cast<int>(items));
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab::flash
