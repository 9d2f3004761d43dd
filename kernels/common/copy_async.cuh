#pragma once
// Copies global -> shared memory without the registers (cp.async, sm_80 and later),
// for both flash kernels: tiles of rows in any shared-memory arrangement, and the
// backward's per-query values.
#include <cstdint>

#include "kernels/common/shared_address.cuh"

namespace attnlab::flash {

// 16 bytes; src_bytes = 0 writes zeros.
__device__ __forceinline__ void copy_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(src_bytes)
               : "memory");
}
// 4 bytes; src_bytes = 0 writes zeros.
__device__ __forceinline__ void copy_async_4(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

// Starts copying `rows` rows of one head (row stride `stride` elements), 16 bytes
// (a chunk) per copy, `threads` threads sharing them, into shared memory at
// destination(row, chunk); rows at or past `rows_present` are filled with zeros instead.
template <typename T, int D, int rows, int threads, typename Destination>
__device__ __forceinline__ void copy_rows_async(Destination destination, const T* first_row, std::int64_t stride,
                                                int rows_present) {
  constexpr int chunks = D / 8;
  static_assert(rows * chunks % threads == 0);
#pragma unroll
  for (int n = 0; n < rows * chunks / threads; ++n) {
    const int i = threadIdx.x + n * threads;
    const int row = i / chunks, chunk = i % chunks;
    const bool present = row < rows_present;
    const T* src = present ? first_row + row * stride + chunk * 8 : first_row;
    copy_async_16(destination(row, chunk), src, present ? 16 : 0);
  }
}

}  // namespace attnlab::flash
