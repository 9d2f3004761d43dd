#pragma once
// The Hopper (sm_90a) instructions the wgmma kernel uses, each behind a small
// function named after what it does: mbarriers (the ring between the producer
// and the consumers), the tensor-memory copy (TMA), wgmma and its shared-memory
// descriptors, register reallocation and named barriers. Nothing here knows
// about attention. Compiled for sm_90a only (attnlab_hopper_library).
#include <cuda.h>  // CUtensorMap (a type only: no driver call is linked)

#include <cstdint>

#include "kernels/common/shared_address.cuh"

namespace attnlab::wgmma_sm90 {

// ---- mbarriers -------------------------------------------------------------------
// A phase completes when `count` threads have arrived and every byte a copy
// announced (expect_tx) has landed. Waiters name the parity of the phase they need.

__device__ __forceinline__ void barrier_init(std::uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
// Makes the initialized barriers visible to the copy engine before its first use.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void barrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}
// One arrival that also announces `bytes` still to land from the copy engine.
__device__ __forceinline__ void barrier_arrive_expect_bytes(std::uint64_t* bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ bool barrier_try_wait(std::uint64_t* bar, int parity) {
  std::uint32_t done;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done)
               : "r"(shared_address(bar)), "r"(parity)
               : "memory");
  return done != 0;
}
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, int parity) {
  while (!barrier_try_wait(bar, parity)) {}
}

// ---- the tensor-memory copy (TMA) ------------------------------------------------

// Copies one box of a 3-D tensor map (coordinates innermost first) into shared
// memory; the bytes count against `bar`'s announced transaction. The map lives
// in the kernel's parameters (__grid_constant__).
__device__ __forceinline__ void copy_box(void* dst, const CUtensorMap* map, std::uint64_t* bar, int c0, int c1,
                                         int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::
          "r"(shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// Stores one box of shared memory into a 3-D tensor map's global tensor (the map's swizzle);
// one bulk group of the calling thread's (commit_bulk_groups). Boxes past the tensor's end
// are dropped.
__device__ __forceinline__ void store_box(const CUtensorMap* map, const void* src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(shared_address(src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
// Adds one box of shared memory into a 3-D tensor map's global tensor (the map's
// element type, its swizzle), element by element in L2; one bulk group of the calling
// thread's (commit_bulk_groups). Boxes past the tensor's end are dropped.
__device__ __forceinline__ void reduce_add_box(const CUtensorMap* map, const void* src, int c0, int c1, int c2) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(shared_address(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// Copies `bytes` (a multiple of 16, both ends 16-byte aligned) of shared memory to global
// memory; one bulk group of the calling thread's (commit_bulk_groups).
__device__ __forceinline__ void store_bulk(void* dst, const void* src, int bytes) {
  asm volatile(
      "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(reinterpret_cast<std::uint64_t>(dst)),
      "r"(shared_address(src)), "r"(bytes)
      : "memory");
}
// Adds `bytes` of fp32 in shared memory into global memory, element by element in L2;
// as store_bulk otherwise.
__device__ __forceinline__ void reduce_add_bulk(float* dst, const void* src, int bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(dst)),
               "r"(shared_address(src)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void commit_bulk_groups() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until at most `pending` of the thread's bulk groups still read their shared memory.
template <int pending>
__device__ __forceinline__ void wait_bulk_groups_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(pending) : "memory");
}
// Until at most `pending` of the thread's bulk groups are unfinished, their writes done.
template <int pending>
__device__ __forceinline__ void wait_bulk_groups() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(pending) : "memory");
}
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}
// Ordinary stores to shared memory that wgmma (the async proxy) reads next.
__device__ __forceinline__ void fence_shared_for_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// The same between this thread's ordinary accesses to global memory and its bulk copies, in
// either order: bulk stores it has waited for before it says so (release), bulk additions
// it issues after hearing so (acquire).
__device__ __forceinline__ void fence_global_for_async() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }
__device__ __forceinline__ int load_acquire(const int* at) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(reinterpret_cast<std::uint64_t>(at)) : "memory");
  return v;
}
__device__ __forceinline__ void or_release(int* at, int bits) {
  asm volatile("red.release.gpu.global.or.b32 [%0], %1;\n" ::"l"(reinterpret_cast<std::uint64_t>(at)), "r"(bits)
               : "memory");
}

// ---- warp specialization -----------------------------------------------------------

// The producer gives registers back and the consumers take them: counts per thread,
// multiples of 8, executed by every thread of a warpgroup.
template <int registers>
__device__ __forceinline__ void release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(registers));
}
template <int registers>
__device__ __forceinline__ void claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(registers));
}
// The calling thread's warpgroup (128 threads), broadcast from lane 0 so that the compiler
// knows a warp's lanes agree: what follows from it, a warpgroup's tiles' descriptors among
// them, stays in uniform registers instead of being moved there before each wgmma.
__device__ __forceinline__ int warpgroup_index() { return __shfl_sync(0xffffffffu, int(threadIdx.x) / 128, 0); }
// A barrier among `threads` threads only (id 0 is __syncthreads').
__device__ __forceinline__ void sync_threads_of(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// Counts towards barrier `id`'s `threads` without waiting for it.
__device__ __forceinline__ void arrive_threads_of(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- wgmma -------------------------------------------------------------------------

// A shared-memory tile as wgmma reads it, in the 128-byte swizzle that TMA writes: rows of
// 128 bytes (64 16-bit elements), 8-row groups 1024 bytes apart (stride), chunk c of row r at
// c ^ (r % 8). Made once per tile, it gives the descriptor of each matrix inside the tile
// with one addition: the descriptor's address field is the address >> 4 in its bits 0-13,
// and shared memory ends below 2^18 bytes, so the field never carries into the next.
struct SharedTile {
  std::uint32_t address;  // the tile's shared address >> 4

  // The tile `bytes` further on (a multiple of 16).
  __device__ __forceinline__ SharedTile operator+(int bytes) const { return {address + std::uint32_t(bytes >> 4)}; }
  // The descriptor of the matrix at `offset` bytes (a multiple of 16). `leading` is the byte
  // offset to the next 64-element block along the contiguous dimension (used by a matrix
  // read transposed; ignored for a K-major one, whose 16 elements stay inside a row).
  __device__ __forceinline__ std::uint64_t descriptor(int offset, int leading) const {
    constexpr std::uint32_t high = (1024 >> 4) | (1u << 30);  // the stride; 1 << 62: the 128-byte swizzle
    return (std::uint64_t(high) << 32) | (address + std::uint32_t(offset >> 4) + (std::uint32_t(leading >> 4) << 16));
  }
};
__device__ __forceinline__ SharedTile shared_tile(const void* tile) { return {(shared_address(tile) & 0x3FFFF) >> 4}; }

// Four 8 x 8 matrices of 16-bit elements into shared memory from mma's fragment layout:
// register i holds matrix i, thread t its row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1.
// Thread t names where row t % 8 of matrix t / 8 goes (16 bytes, 16-byte aligned).
__device__ __forceinline__ void store_matrices(void* row, std::uint32_t m0, std::uint32_t m1, std::uint32_t m2,
                                               std::uint32_t m3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(shared_address(row)), "r"(m0),
               "r"(m1), "r"(m2), "r"(m3)
               : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
}
// Keeps the compiler from moving reads or writes of accumulator registers across
// the asynchronous wgmma that owns them (between commit and wait).
template <int n>
__device__ __forceinline__ void pin_registers(float (&r)[n]) {
#pragma unroll
  for (int i = 0; i < n; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
// The same for fragments a wgmma reads: they stay live (unchanged) until here.
template <int n, int m>
__device__ __forceinline__ void pin_registers(std::uint32_t (&r)[n][m]) {
#pragma unroll
  for (int i = 0; i < n; ++i)
#pragma unroll
    for (int j = 0; j < m; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
}

// The accumulator lists of the wgmma wrappers below.
#define ATTNLAB_ACC32(d)                                                                                      \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define ATTNLAB_ACC64(d)                                                                                       \
  ATTNLAB_ACC32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), \
      "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]),  \
      "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),  \
      "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),  \
      "+f"(d[63])
#define ATTNLAB_REGS32                                                                                              \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31}"
#define ATTNLAB_REGS64                                                                                              \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, "  \
  "%46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"

// d (64 x N, fp32) = A·B (+ d when accumulate), both from shared memory, 16 deep.
// A is 64 x 16 and B 16 x N; each is K-major (the 16 elements of a row of A, or of
// a column of B, contiguous: Q·Kᵀ with Q and K as stored) unless its flag says
// MN-major (64 rows of A, or N columns of B, contiguous: a matrix read transposed).
// N = 128 or 64: d holds N/2 accumulators per thread.
template <bool bf16, int n, bool a_mn_major = false, bool b_mn_major = false>
__device__ __forceinline__ void wgmma_64xn_shared(float (&d)[n / 2], std::uint64_t a, std::uint64_t b,
                                                  bool accumulate) {
  static_assert(n == 128 || n == 64);
  // a_desc, b_desc, pred, ta, tb: the operands after d's, numbered.
#define ATTNLAB_WGMMA_SS(shape, type, regs, acc, a_desc, b_desc, pred, ta, tb)                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " pred ", 0;\nwgmma.mma_async.sync.aligned." shape ".f32." type \
               "." type " " regs ", " a_desc ", " b_desc ", p, 1, 1, " ta ", " tb ";\n}\n"                       \
               : acc(d)                                                                                          \
               : "l"(a), "l"(b), "r"(int(accumulate)), "n"(int(a_mn_major)), "n"(int(b_mn_major)))
  if constexpr (n == 128 && bf16)
    ATTNLAB_WGMMA_SS("m64n128k16", "bf16", ATTNLAB_REGS64, ATTNLAB_ACC64, "%64", "%65", "%66", "%67", "%68");
  else if constexpr (n == 128)
    ATTNLAB_WGMMA_SS("m64n128k16", "f16", ATTNLAB_REGS64, ATTNLAB_ACC64, "%64", "%65", "%66", "%67", "%68");
  else if constexpr (bf16)
    ATTNLAB_WGMMA_SS("m64n64k16", "bf16", ATTNLAB_REGS32, ATTNLAB_ACC32, "%32", "%33", "%34", "%35", "%36");
  else
    ATTNLAB_WGMMA_SS("m64n64k16", "f16", ATTNLAB_REGS32, ATTNLAB_ACC32, "%32", "%33", "%34", "%35", "%36");
#undef ATTNLAB_WGMMA_SS
}

// d (64 x N, fp32) += A·B, A (64 x 16) from registers in the mma.sync A-fragment
// layout per warp, B (16 x N) from shared memory read transposed (N contiguous).
// N = 128 or 64: d holds N/2 accumulators per thread.
template <bool bf16, int n>
__device__ __forceinline__ void wgmma_64xn_registers(float (&d)[n / 2], const std::uint32_t (&a)[4], std::uint64_t b) {
  static_assert(n == 128 || n == 64);
  // a_regs, b_desc, pred: A's four registers, B's descriptor and the accumulate predicate, numbered after d's.
#define ATTNLAB_WGMMA_RS(shape, type, regs, acc, a_regs, b_desc, pred)                                           \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " pred ", 0;\nwgmma.mma_async.sync.aligned." shape ".f32." type \
               "." type " " regs ", " a_regs ", " b_desc ", p, 1, 1, 1;\n}\n"                                    \
               : acc(d)                                                                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(1))
  if constexpr (n == 128 && bf16)
    ATTNLAB_WGMMA_RS("m64n128k16", "bf16", ATTNLAB_REGS64, ATTNLAB_ACC64, "{%64, %65, %66, %67}", "%68", "%69");
  else if constexpr (n == 128)
    ATTNLAB_WGMMA_RS("m64n128k16", "f16", ATTNLAB_REGS64, ATTNLAB_ACC64, "{%64, %65, %66, %67}", "%68", "%69");
  else if constexpr (bf16)
    ATTNLAB_WGMMA_RS("m64n64k16", "bf16", ATTNLAB_REGS32, ATTNLAB_ACC32, "{%32, %33, %34, %35}", "%36", "%37");
  else
    ATTNLAB_WGMMA_RS("m64n64k16", "f16", ATTNLAB_REGS32, ATTNLAB_ACC32, "{%32, %33, %34, %35}", "%36", "%37");
#undef ATTNLAB_WGMMA_RS
}
#undef ATTNLAB_ACC32
#undef ATTNLAB_ACC64
#undef ATTNLAB_REGS32
#undef ATTNLAB_REGS64

}  // namespace attnlab::wgmma_sm90
