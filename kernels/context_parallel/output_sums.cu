// kernels/context_parallel.hpp: a rank's rounds through run_flash, each folded into fp32 sums
// by its LSE in the kernels' epilogue (kernels/common/output_sums.cuh). Only the LSE is
// cleared before a run: a sum at -inf holds no key yet and its O is never read (poisoned
// once, when allocated), so O is defined as 0 there when the sums are read out.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <stdexcept>
#include <string>

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

// O in the dtype: the sums' where their LSE is finite, 0 where no key was added.
template <typename T>
__global__ void write_output(std::int64_t values, int head_dim, const float* o, const float* lse, T* out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < values) out[i] = T(lse[i / head_dim] == -INFINITY ? 0.f : o[i]);
}

std::size_t sums_bytes(std::int64_t queries, const AttentionProblem& p) {
  const std::size_t pairs = std::size_t(queries) * p.heads;
  return pairs * p.head_dim * sizeof(float) + pairs * sizeof(float) + sizeof(int);
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
      work_counter_(sizeof(int)) {
  o_.poison();  // once: O where LSE is -inf is never read, and every byte is defined
  clear();
  CUDA_CHECK(cudaDeviceSynchronize());
}

void CpOutputSums::clear(cudaStream_t stream) {
  const std::int64_t pairs = queries_ * problem_.heads;
  if (pairs == 0) return;
  fill<<<blocks_for(pairs), block, 0, stream>>>(static_cast<float*>(lse_.data()), pairs, -INFINITY);
  CUDA_CHECK_LAUNCH();
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
  views.o_sums = static_cast<float*>(o_.data());
  views.lse = static_cast<float*>(lse_.data());
  views.work_counter = static_cast<int*>(work_counter_.data());
  views.sm_margin = sm_margin;
  for (const DeviceLayout& round : pieces.rounds()) run_flash(kernel, round, problem_, views, stream);
}

void CpOutputSums::write(void* o, float* lse, cudaStream_t stream) const {
  const std::int64_t pairs = queries_ * problem_.heads, values = pairs * problem_.head_dim;
  if (pairs == 0) return;
  const float* sums = static_cast<const float*>(o_.data());
  const float* sums_lse = static_cast<const float*>(lse_.data());
  if (problem_.dtype == DType::bf16)
    write_output<<<blocks_for(values), block, 0, stream>>>(values, problem_.head_dim, sums, sums_lse,
                                                           static_cast<__nv_bfloat16*>(o));
  else
    write_output<<<blocks_for(values), block, 0, stream>>>(values, problem_.head_dim, sums, sums_lse,
                                                           static_cast<__half*>(o));
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(lse, sums_lse, lse_.bytes(), cudaMemcpyDeviceToDevice, stream));
}

std::vector<float> CpOutputSums::download_o() const {
  std::vector<float> out(o_.bytes() / sizeof(float));
  o_.download(out.data(), o_.bytes());
  const std::vector<float> lse = download_lse();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (lse[i / problem_.head_dim] == -INFINITY) out[i] = 0.f;
  return out;
}

std::vector<float> CpOutputSums::download_lse() const {
  std::vector<float> out(lse_.bytes() / sizeof(float));
  lse_.download(out.data(), lse_.bytes());
  return out;
}

}  // namespace attnlab
