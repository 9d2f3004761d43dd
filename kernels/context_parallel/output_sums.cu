// kernels/context_parallel.hpp: a rank's rounds through run_flash, each merged into fp32 sums
// by its LSE. Between rounds the round's LSE buffer holds -inf everywhere: a round's kernel
// writes only its rows' queries, and the merge skips a query whose LSE is -inf and leaves
// -inf behind where it merged, so no query is merged twice.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/common/backward_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/context_parallel.hpp"

namespace attnlab {

namespace {

constexpr int block = 256;

unsigned blocks_for(std::int64_t threads) { return static_cast<unsigned>((threads + block - 1) / block); }

__global__ void fill(float* to, std::int64_t count, float value) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) to[i] = value;
}

void fill_async(const DeviceBuffer& buffer, float value, cudaStream_t stream) {
  const std::int64_t count = static_cast<std::int64_t>(buffer.bytes() / sizeof(float));
  if (count == 0) return;
  fill<<<blocks_for(count), block, 0, stream>>>(static_cast<float*>(buffer.data()), count, value);
  CUDA_CHECK_LAUNCH();
}

// A warp per (query, head) of the round: the lanes share the head dim. The weights come
// from the larger LSE, so neither exponential overflows; a sum still at -inf gets weight 0.
template <typename T>
__global__ void merge_round(std::int64_t pairs, int head_dim, const T* part_o, float* part_lse, float* o, float* lse) {
  const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= pairs) return;
  const float part = part_lse[warp];
  if (part == -INFINITY) return;  // no key of this round for this query
  const float sum = lse[warp];
  const float merged = fmaxf(sum, part) + log1pf(expf(-fabsf(sum - part)));
  const float weight = expf(sum - merged), part_weight = expf(part - merged);
  float* out = o + warp * head_dim;
  const T* in = part_o + warp * head_dim;
  for (int d = lane; d < head_dim; d += 32) out[d] = weight * out[d] + part_weight * float(in[d]);
  __syncwarp();  // every lane has read the sum's LSE before lane 0 replaces it
  if (lane == 0) {
    lse[warp] = merged;
    part_lse[warp] = -INFINITY;
  }
}

std::size_t sums_bytes(std::int64_t queries, const AttentionProblem& p) {
  const std::size_t pairs = std::size_t(queries) * p.heads;
  return pairs * p.head_dim * (sizeof(float) + dtype_bytes(p.dtype)) + 2 * pairs * sizeof(float) + sizeof(int);
}

std::int64_t fitting_queries(std::int64_t queries, const AttentionProblem& p) {
  p.validate();
  require_device_memory(sums_bytes(queries, p),
                        "a context-parallel rank's sums of " + std::to_string(queries) + " queries need");
  return queries;
}

}  // namespace

CpOutputSums::CpOutputSums(std::int64_t queries, const AttentionProblem& problem)
    : queries_(fitting_queries(queries, problem)),
      problem_(problem),
      o_(std::size_t(queries) * problem.heads * problem.head_dim * sizeof(float)),
      lse_(std::size_t(queries) * problem.heads * sizeof(float)),
      part_o_(std::size_t(queries) * problem.heads * problem.head_dim * dtype_bytes(problem.dtype)),
      part_lse_(std::size_t(queries) * problem.heads * sizeof(float)),
      work_counter_(sizeof(int)) {
  clear();
  fill_async(part_lse_, -INFINITY, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
}

void CpOutputSums::clear(cudaStream_t stream) {
  if (o_.bytes()) CUDA_CHECK(cudaMemsetAsync(o_.data(), 0, o_.bytes(), stream));
  fill_async(lse_, -INFINITY, stream);
}

void CpOutputSums::add(FlashKernel kernel, const DeviceCpPieces& pieces, const void* q, const void* k, const void* v,
                       cudaStream_t stream, int sm_margin) {
  if (pieces.host().query_tokens != queries_)
    throw std::invalid_argument("CpOutputSums::add: the pieces' query buffer holds " +
                                std::to_string(pieces.host().query_tokens) + " positions, the sums " +
                                std::to_string(queries_));
  AttentionViews views;
  views.positions = pieces.host().key_tokens;
  views.q = q;
  views.k = k;
  views.v = v;
  views.o = part_o_.data();
  views.lse = static_cast<float*>(part_lse_.data());
  views.work_counter = static_cast<int*>(work_counter_.data());
  views.sm_margin = sm_margin;
  const std::int64_t pairs = queries_ * problem_.heads;
  for (const DeviceLayout& round : pieces.rounds()) {
    run_flash(kernel, round, problem_, views, stream);
    if (pairs == 0) continue;
    const unsigned blocks = blocks_for(pairs * 32);
    float* o = static_cast<float*>(o_.data());
    float* lse = static_cast<float*>(lse_.data());
    if (problem_.dtype == DType::bf16)
      merge_round<<<blocks, block, 0, stream>>>(pairs, problem_.head_dim,
                                                static_cast<const __nv_bfloat16*>(part_o_.data()), views.lse, o, lse);
    else
      merge_round<<<blocks, block, 0, stream>>>(pairs, problem_.head_dim, static_cast<const __half*>(part_o_.data()),
                                                views.lse, o, lse);
    CUDA_CHECK_LAUNCH();
  }
}

void CpOutputSums::write(void* o, float* lse, cudaStream_t stream) const {
  const std::int64_t pairs = queries_ * problem_.heads;
  convert_from_fp32(static_cast<const float*>(o_.data()), o, pairs * problem_.head_dim, 1.f, problem_.dtype, stream);
  if (lse_.bytes()) CUDA_CHECK(cudaMemcpyAsync(lse, lse_.data(), lse_.bytes(), cudaMemcpyDeviceToDevice, stream));
}

std::vector<float> CpOutputSums::download_o() const {
  std::vector<float> out(o_.bytes() / sizeof(float));
  o_.download(out.data(), o_.bytes());
  return out;
}

std::vector<float> CpOutputSums::download_lse() const {
  std::vector<float> out(lse_.bytes() / sizeof(float));
  lse_.download(out.data(), lse_.bytes());
  return out;
}

}  // namespace attnlab
