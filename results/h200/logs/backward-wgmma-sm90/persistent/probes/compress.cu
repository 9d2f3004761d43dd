// Does Hopper's generic compression make zeroed fp32 sums cheaper to write and read back?
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      exit(1);                                       \
    }                                                \
  } while (0)
#define DK(x)                    \
  do {                           \
    CUresult e = (x);            \
    if (e != CUDA_SUCCESS) {     \
      const char* s;             \
      cuGetErrorString(e, &s);   \
      printf("%s: %s\n", #x, s); \
      exit(1);                   \
    }                            \
  } while (0)

__global__ void zero(float4* p, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) p[i] = float4{};
}
__global__ void dot_zero(const uint4* a, const uint4* b, float4* z, float* out, long n) {
  float s = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    uint4 x = a[i], y = b[i];
    s += __uint_as_float(x.x) * __uint_as_float(y.x) + __uint_as_float(x.w) * __uint_as_float(y.w);
    z[2 * i] = float4{};
    z[2 * i + 1] = float4{};
  }
  if (s == 12345.f) out[0] = s;
}
__global__ void reduce_pass(float* p, long n, int rounds) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n / 2; i += (long)gridDim.x * blockDim.x)
    for (int r = 0; r < rounds; ++r) atomicAdd(reinterpret_cast<float2*>(p) + i, float2{1.f, 2.f});
}
__global__ void read_pass(const float4* p, long n, float* out) {
  float s = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    float4 v = p[i];
    s += v.x + v.w;
  }
  if (s == 12345.f) out[0] = s;
}

float* compressible(size_t bytes, bool want, bool* got) {
  CUdevice dev;
  DK(cuDeviceGet(&dev, 0));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.allocFlags.compressionType = want ? CU_MEM_ALLOCATION_COMP_GENERIC : 0;
  size_t g;
  DK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  bytes = (bytes + g - 1) / g * g;
  CUmemGenericAllocationHandle h;
  DK(cuMemCreate(&h, bytes, &prop, 0));
  CUmemAllocationProp back{};
  DK(cuMemGetAllocationPropertiesFromHandle(&back, h));
  *got = back.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;
  CUdeviceptr p;
  DK(cuMemAddressReserve(&p, bytes, 0, 0, 0));
  DK(cuMemMap(p, bytes, 0, h, 0));
  CUmemAccessDesc a{};
  a.location = prop.location;
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DK(cuMemSetAccess(p, bytes, &a, 1));
  return reinterpret_cast<float*>(p);
}

template <typename F>
float time_it(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  CK(cudaFree(0));
  CUdevice dev;
  DK(cuDeviceGet(&dev, 0));
  int sup = 0;
  DK(cuDeviceGetAttribute(&sup, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev));
  printf("generic compression supported: %d\n", sup);
  const long floats = 32768L * 16 * 128;  // uniform-64x512's dQ sums
  const size_t bytes = floats * 4;
  uint4 *o, *d_o;
  CK(cudaMalloc(&o, bytes / 2));
  CK(cudaMalloc(&d_o, bytes / 2));
  CK(cudaMemset(o, 0x3c, bytes / 2));
  CK(cudaMemset(d_o, 0x3c, bytes / 2));
  float* out;
  CK(cudaMalloc(&out, 4));
  float* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  for (int want = 0; want < 2; ++want) {
    bool got;
    float* s = compressible(bytes, want, &got);
    const int blocks = 132 * 8, threads = 256;
    auto fl = [&] { CK(cudaMemset(flush, want, 256 << 20)); };
    float tz = time_it([&] { zero<<<blocks, threads>>>(reinterpret_cast<float4*>(s), floats / 4); });
    float tm = time_it([&] { CK(cudaMemsetAsync(s, 0, bytes)); });
    float td = time_it([&] { dot_zero<<<blocks, threads>>>(o, d_o, reinterpret_cast<float4*>(s), out, floats / 8); });
    // sums zeroed, flushed from L2, then 4 rounds of reductions over them, then read back
    std::vector<float> tr, trd;
    for (int r = 0; r < 9; ++r) {
      zero<<<blocks, threads>>>(reinterpret_cast<float4*>(s), floats / 4);
      fl();
      tr.push_back(time_it([&] {}) * 0 + 0);
      cudaEvent_t a, b, c;
      cudaEventCreate(&a);
      cudaEventCreate(&b);
      cudaEventCreate(&c);
      cudaEventRecord(a);
      reduce_pass<<<blocks, threads>>>(s, floats, 1);
      cudaEventRecord(b);
      fl();
      cudaEventRecord(c);
      read_pass<<<blocks, threads>>>(reinterpret_cast<float4*>(s), floats / 4, out);
      cudaEvent_t d;
      cudaEventCreate(&d);
      cudaEventRecord(d);
      CK(cudaEventSynchronize(d));
      float m1, m2;
      cudaEventElapsedTime(&m1, a, b);
      cudaEventElapsedTime(&m2, c, d);
      tr.back() = m1 * 1000;
      trd.push_back(m2 * 1000);
    }
    std::sort(tr.begin(), tr.end());
    std::sort(trd.begin(), trd.end());
    // read back zeros only
    float tzr = time_it([&] {});
    {
      std::vector<float> t;
      for (int r = 0; r < 9; ++r) {
        zero<<<blocks, threads>>>(reinterpret_cast<float4*>(s), floats / 4);
        fl();
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        cudaEventRecord(a);
        read_pass<<<blocks, threads>>>(reinterpret_cast<float4*>(s), floats / 4, out);
        cudaEventRecord(b);
        CK(cudaEventSynchronize(b));
        float m;
        cudaEventElapsedTime(&m, a, b);
        t.push_back(m * 1000);
      }
      std::sort(t.begin(), t.end());
      tzr = t[4];
    }
    CK(cudaGetLastError());
    printf(
        "%s (compressible granted: %d): zero %.1f us, memset %.1f us, dot+zero %.1f us, first reductions %.1f us, read "
        "back nonzero %.1f us, read back zeros %.1f us\n",
        want ? "compressible" : "plain", got, tz, tm, td, tr[4], trd[4], tzr);
  }
  return 0;
}
