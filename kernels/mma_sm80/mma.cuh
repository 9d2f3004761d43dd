#pragma once
// The sm_80 instructions the teaching kernel computes with, each behind a function
// named after what it does: ldmatrix (shared memory -> mma fragments) and mma.sync
// (a 16x8x16 product on the tensor cores), and the swizzle that keeps ldmatrix free
// of bank conflicts.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/common/shared_address.cuh"

namespace attnlab::mma_sm80 {

// 16-byte rows of 8 elements; chunk c of row r sits at chunk c ^ (r & 7), so the
// 8 rows an ldmatrix phase reads fall in 8 different bank groups.
template <int D>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

__device__ __forceinline__ void load_fragments(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}
__device__ __forceinline__ void load_fragments_transposed(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}

// Columns 8j..8j+7 of an accumulator (16 rows, common/accumulator.cuh's layout)
// += a (16x16) · b (16x8) on the tensor cores.
template <typename T, int n>
__device__ __forceinline__ void mma_16x8x16(float (&acc)[n], int j, const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(acc[4 * j]), "+f"(acc[4 * j + 1]), "+f"(acc[4 * j + 2]), "+f"(acc[4 * j + 3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(acc[4 * j]), "+f"(acc[4 * j + 1]), "+f"(acc[4 * j + 2]), "+f"(acc[4 * j + 3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

}  // namespace attnlab::mma_sm80
