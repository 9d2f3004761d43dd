// The parts of kernels/backward.hpp both backwards share: the gradient tensors,
// Δ = rowsum(dO∘O), and fp32 accumulators converted to the dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/backward.hpp"
#include "kernels/common/backward_passes.hpp"
#include "kernels/common/cuda_check.hpp"

namespace attnlab {

std::size_t gradient_tensor_bytes(std::int64_t positions, const AttentionProblem& p) {
  const std::size_t n = std::size_t(positions);
  const std::size_t q_like = n * p.heads * p.head_dim, kv_like = n * p.kv_heads * p.head_dim;
  return (2 * q_like + 2 * kv_like) * dtype_bytes(p.dtype)  // dO, dQ; dK, dV
         + (n * p.heads + q_like) * sizeof(float)           // Δ, the dQ accumulator
         + (n * p.heads + 1) * sizeof(int);                 // the dQ blocks' arrivals, the work counter
}

namespace {

// Refuses before any gradient tensor is allocated, with the bytes of all of them.
std::int64_t fitting_gradient_positions(std::int64_t positions, const AttentionProblem& p) {
  require_device_memory(gradient_tensor_bytes(positions, p), "dO, dQ, dK, dV and the backward's workspace of " +
                                                                 std::to_string(positions) + " positions need");
  return positions;
}

}  // namespace

GradientTensors::GradientTensors(std::int64_t positions_, const AttentionProblem& p)
    : positions(fitting_gradient_positions(positions_, p)),
      d_o(std::size_t(positions_) * p.heads * p.head_dim * dtype_bytes(p.dtype)),
      dq(std::size_t(positions_) * p.heads * p.head_dim * dtype_bytes(p.dtype)),
      dk(std::size_t(positions_) * p.kv_heads * p.head_dim * dtype_bytes(p.dtype)),
      dv(std::size_t(positions_) * p.kv_heads * p.head_dim * dtype_bytes(p.dtype)),
      delta(std::size_t(positions_) * p.heads * sizeof(float)),
      dq_accum(std::size_t(positions_) * p.heads * p.head_dim * sizeof(float)),
      dq_arrivals(std::size_t(positions_) * p.heads * sizeof(int)),
      work_counter(sizeof(int)) {}

void upload_d_o(GradientTensors& g, DType dtype, const std::vector<float>& d_o) { upload_values(g.d_o, d_o, dtype); }

HostGradients download_gradients(const GradientTensors& g, DType dtype) {
  return {download_values(g.dq, dtype), download_values(g.dk, dtype), download_values(g.dv, dtype)};
}

namespace {

// The backward's two streaming passes move every byte of dO, O and the dQ accumulator
// once; they are bound by HBM bandwidth only if each thread keeps 16-byte loads in
// flight (2- and 4-byte loads left a third of it unused). Chunks of 8 elements.
constexpr int chunk = 8;

template <typename T>
__device__ __forceinline__ float dot_of_chunks(const uint4& a, const uint4& b) {
  const T* x = reinterpret_cast<const T*>(&a);
  const T* y = reinterpret_cast<const T*>(&b);
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < chunk; ++i) sum += float(x[i]) * float(y[i]);
  return sum;
}

// A group of `lanes` adjacent lanes (head_dim/8) per (position, head), a chunk each, summed
// across the group (groups never straddle a warp: their size divides 32). The group size is
// a constant, so a chunk's pair is a shift (a 64-bit division by a run-time size leaves the
// pass issue-bound, at four fifths of HBM's rate). Each lane also makes its chunk's 8 dQ sums
// ready (DqSumsReady), so the sums need no pass of their own.
template <typename T, int lanes>
__global__ void row_dot(const T* d_o, const T* o, std::int64_t pairs, float* delta, DqSumsReady ready) {
  const std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = c < pairs * lanes;
  uint4 a, b;
  if (valid) {
    a = reinterpret_cast<const uint4*>(d_o)[c];
    b = reinterpret_cast<const uint4*>(o)[c];
  }
  const std::int64_t pair = c / lanes;
  const bool clear = ready.sums && valid && (!ready.lse || ready.lse[pair] == -INFINITY);
  // Lanes past the last pair add 0: every lane of a warp takes part in the shuffles.
  float sum = valid ? dot_of_chunks<T>(a, b) : 0.f;
  if (clear) {
    reinterpret_cast<float4*>(ready.sums)[2 * c] = float4{};
    reinterpret_cast<float4*>(ready.sums)[2 * c + 1] = float4{};
  }
  for (int m = lanes / 2; m > 0; m /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, m);
  if (valid && c % lanes == 0) {
    delta[pair] = sum;
    if (ready.arrivals) ready.arrivals[pair] = 0;
  }
}

// A chunk per thread: two 16-byte loads, one 16-byte store; a last partial chunk element by element.
template <typename T>
__global__ void scaled_copy(const float* from, T* to, std::int64_t count, float factor) {
  const std::int64_t first = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * chunk;
  if (first + chunk <= count) {
    const float4 a = reinterpret_cast<const float4*>(from + first)[0],
                 b = reinterpret_cast<const float4*>(from + first)[1];
    const float v[chunk] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    uint4 packed;
    T* out = reinterpret_cast<T*>(&packed);
#pragma unroll
    for (int i = 0; i < chunk; ++i) out[i] = T(v[i] * factor);
    *reinterpret_cast<uint4*>(to + first) = packed;
  } else {
    for (std::int64_t i = first; i < count; ++i) to[i] = T(from[i] * factor);
  }
}

constexpr int block = 256;

unsigned blocks_for(std::int64_t threads) { return static_cast<unsigned>((threads + block - 1) / block); }

template <typename T, int lanes>
void launch_row_dot(const void* d_o, const void* o, std::int64_t pairs, float* delta, const DqSumsReady& ready,
                    cudaStream_t stream) {
  row_dot<T, lanes><<<blocks_for(pairs * lanes), block, 0, stream>>>(static_cast<const T*>(d_o),
                                                                     static_cast<const T*>(o), pairs, delta, ready);
}

template <typename T>
void launch_row_dot(int lanes, const void* d_o, const void* o, std::int64_t pairs, float* delta,
                    const DqSumsReady& ready, cudaStream_t stream) {
  switch (lanes) {
    case 1: return launch_row_dot<T, 1>(d_o, o, pairs, delta, ready, stream);
    case 2: return launch_row_dot<T, 2>(d_o, o, pairs, delta, ready, stream);
    case 4: return launch_row_dot<T, 4>(d_o, o, pairs, delta, ready, stream);
    case 8: return launch_row_dot<T, 8>(d_o, o, pairs, delta, ready, stream);
    case 16: return launch_row_dot<T, 16>(d_o, o, pairs, delta, ready, stream);
    case 32: return launch_row_dot<T, 32>(d_o, o, pairs, delta, ready, stream);
  }
  throw std::logic_error("compute_delta: head dim " + std::to_string(lanes * chunk) +
                         " is not 8, 16, 32, 64, 128 or 256");
}

}  // namespace

void compute_delta(const AttentionProblem& p, std::int64_t positions, const void* d_o, const void* o, float* delta,
                   const DqSumsReady& ready, cudaStream_t stream) {
  const std::int64_t pairs = positions * p.heads;
  if (pairs == 0) return;
  const int lanes = p.head_dim % chunk == 0 ? p.head_dim / chunk : 0;
  if (p.dtype == DType::bf16)
    launch_row_dot<__nv_bfloat16>(lanes, d_o, o, pairs, delta, ready, stream);
  else
    launch_row_dot<__half>(lanes, d_o, o, pairs, delta, ready, stream);
  CUDA_CHECK_LAUNCH();
}

void convert_from_fp32(const float* from, void* to, std::int64_t count, float factor, DType dtype,
                       cudaStream_t stream) {
  if (count == 0) return;
  const unsigned blocks = blocks_for((count + chunk - 1) / chunk);
  if (dtype == DType::bf16)
    scaled_copy<<<blocks, block, 0, stream>>>(from, static_cast<__nv_bfloat16*>(to), count, factor);
  else
    scaled_copy<<<blocks, block, 0, stream>>>(from, static_cast<__half*>(to), count, factor);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab
