// The parts of kernels/backward.hpp both backwards share: the gradient tensors,
// Δ = rowsum(dO∘O), and fp32 accumulators converted to the dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/backward.hpp"
#include "kernels/backward_steps.hpp"
#include "kernels/cuda_check.hpp"

namespace attnlab {

std::size_t gradient_tensor_bytes(std::int64_t positions, const AttentionProblem& p) {
  const std::size_t n = std::size_t(positions);
  const std::size_t q_like = n * p.heads * p.head_dim, kv_like = n * p.kv_heads * p.head_dim;
  return (2 * q_like + 2 * kv_like) * dtype_bytes(p.dtype)            // dO, dQ; dK, dV
         + (n * p.heads + q_like) * sizeof(float);                    // Δ, the dQ accumulator
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
      dq_accum(std::size_t(positions_) * p.heads * p.head_dim * sizeof(float)) {}

void upload_d_o(GradientTensors& g, DType dtype, const std::vector<float>& d_o) { upload_values(g.d_o, d_o, dtype); }

HostGradients download_gradients(const GradientTensors& g, DType dtype) {
  return {download_values(g.dq, dtype), download_values(g.dk, dtype), download_values(g.dv, dtype)};
}

namespace {

// One warp per (position, head).
template <typename T>
__global__ void row_dot(const T* d_o, const T* o, std::int64_t pairs, int head_dim, float* delta) {
  const std::int64_t pair = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (pair >= pairs) return;  // whole warps: pair is the same for all 32 lanes
  float sum = 0.f;
  for (int d = lane; d < head_dim; d += 32) sum += float(d_o[pair * head_dim + d]) * float(o[pair * head_dim + d]);
  for (int m = 16; m > 0; m /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, m);
  if (lane == 0) delta[pair] = sum;
}

template <typename T>
__global__ void scaled_copy(const float* from, T* to, std::int64_t count, float factor) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) to[i] = T(from[i] * factor);
}

constexpr int block = 256;

unsigned blocks_for(std::int64_t threads) { return static_cast<unsigned>((threads + block - 1) / block); }

}  // namespace

void compute_delta(const AttentionProblem& p, std::int64_t positions, const void* d_o, const void* o, float* delta) {
  const std::int64_t pairs = positions * p.heads;
  if (pairs == 0) return;
  if (p.dtype == DType::bf16)
    row_dot<<<blocks_for(pairs * 32), block>>>(static_cast<const __nv_bfloat16*>(d_o),
                                               static_cast<const __nv_bfloat16*>(o), pairs, p.head_dim, delta);
  else
    row_dot<<<blocks_for(pairs * 32), block>>>(static_cast<const __half*>(d_o), static_cast<const __half*>(o), pairs,
                                               p.head_dim, delta);
  CUDA_CHECK_LAUNCH();
}

void convert_from_fp32(const float* from, void* to, std::int64_t count, float factor, DType dtype) {
  if (count == 0) return;
  if (dtype == DType::bf16)
    scaled_copy<<<blocks_for(count), block>>>(from, static_cast<__nv_bfloat16*>(to), count, factor);
  else
    scaled_copy<<<blocks_for(count), block>>>(from, static_cast<__half*>(to), count, factor);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attnlab
