// naive backward: every N² matrix of the backward goes through device memory.
// From the forward's P (NaiveAttention keeps it), per head: dV += Pᵀ·dO and
// dP = dO·Vᵀ (fp32) with cuBLAS; one masking kernel dS = P∘(dP − Δ) (dtype);
// then dQ = scale·dS·K and dK += scale·dSᵀ·Q with cuBLAS. dK and dV are summed
// over a group's query heads in fp32 and converted at the end.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/backward.hpp"
#include "kernels/common/backward_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/naive/query.cuh"

namespace attnlab {

namespace {

// Score cells of every (row, head): the forward's S has exactly these (its
// workspace size also checks that the rows share one extent).
std::size_t score_cells(const Layout& layout, const AttentionProblem& problem) {
  return naive_workspace_bytes(layout, problem) / (sizeof(float) + dtype_bytes(problem.dtype));
}

// One warp per query of one (row, head): dS = P∘(dP − Δ) over the query's
// attended keys (by cell_kind), 0 elsewhere.
template <typename T>
__global__ void masked_score_gradients(LayoutView lv, int extent, int heads, const T* probs, const float* d_probs,
                                       const float* delta, T* d_scores) {
  NaiveQuery w;
  if (!warp_query(lv, extent, heads, w)) return;
  const int lane = threadIdx.x % 32;
  const std::int64_t query = w.index;
  const int r = w.row, head = w.head, q = w.q;
  const T* p = probs + query * extent;
  const float* dp = d_probs + query * extent;
  T* ds = d_scores + query * extent;
  const float d = delta[(std::int64_t(lv.row_start[r]) + q) * heads + head];
  for (int k = lane; k < extent; k += 32) ds[k] = T(attended(cell_kind(lv, r, q, k)) ? float(p[k]) * (dp[k] - d) : 0.f);
}

}  // namespace

std::size_t naive_backward_workspace_bytes(const Layout& layout, const AttentionProblem& problem) {
  const std::size_t kv_values = std::size_t(layout.buffer_tokens()) * problem.kv_heads * problem.head_dim;
  return score_cells(layout, problem) * (sizeof(float) + dtype_bytes(problem.dtype))  // dP fp32, dS dtype
         + 2 * kv_values * sizeof(float);                                             // dK, dV accumulators
}

NaiveBackward::NaiveBackward(const DeviceLayout& layout, const AttentionProblem& problem)
    : layout_(layout), problem_(problem) {
  problem_.validate();
  require_device_memory(naive_backward_workspace_bytes(layout.host(), problem_),
                        "naive backward's dP, dS and dK, dV sums need");
  const std::size_t cells = score_cells(layout.host(), problem_);
  const std::size_t kv_values = std::size_t(layout.host().buffer_tokens()) * problem_.kv_heads * problem_.head_dim;
  d_probs_ = DeviceBuffer(cells * sizeof(float));
  d_scores_ = DeviceBuffer(cells * dtype_bytes(problem_.dtype));
  dk_accum_ = DeviceBuffer(kv_values * sizeof(float));
  dv_accum_ = DeviceBuffer(kv_values * sizeof(float));
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  cublas_ = handle;
}

NaiveBackward::~NaiveBackward() {
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
}

void NaiveBackward::run(const NaiveAttention& naive, const AttentionTensors& t, GradientTensors& g,
                        cudaStream_t stream) {
  const Layout& host = layout_.host();
  const std::int64_t positions = host.buffer_tokens();
  if (t.positions != positions || g.positions != positions)
    throw std::invalid_argument("naive backward: tensors hold " + std::to_string(t.positions) +
                                " positions and gradients " + std::to_string(g.positions) + ", the layout " +
                                std::to_string(positions));
  const std::size_t cells = score_cells(host, problem_);
  if (naive.probabilities().bytes() != cells * dtype_bytes(problem_.dtype))
    throw std::invalid_argument("naive backward: the forward's P is not of this layout and problem");
  compute_delta(problem_, positions, g.d_o.data(), t.o.data(), static_cast<float*>(g.delta.data()), {}, stream);
  const int rows = host.num_rows();
  if (rows == 0) return;
  const long long L = host.longest_row();
  const int H = problem_.heads, KVH = problem_.kv_heads, D = problem_.head_dim;
  const int group = H / KVH;
  const std::size_t elem = dtype_bytes(problem_.dtype);
  const cudaDataType_t type = problem_.dtype == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  auto handle = static_cast<cublasHandle_t>(cublas_);
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  auto* q = static_cast<const char*>(t.q.data());
  auto* k = static_cast<const char*>(t.k.data());
  auto* v = static_cast<const char*>(t.v.data());
  auto* d_o = static_cast<const char*>(g.d_o.data());
  auto* dq = static_cast<char*>(g.dq.data());
  auto* p = static_cast<const char*>(naive.probabilities().data());
  auto* dp = static_cast<float*>(d_probs_.data());
  auto* ds = static_cast<char*>(d_scores_.data());
  auto* dk_sum = static_cast<float*>(dk_accum_.data());
  auto* dv_sum = static_cast<float*>(dv_accum_.data());
  const float scale = problem_.softmax_scale(), one = 1.f, zero = 0.f;

  // Column-major cuBLAS sees a row-major [token][dim] matrix as its transpose
  // (forward.cu says how). P, dP, dS are row-major [query][key] per (row, head),
  // i.e. column-major [key][query]; one strided batch over rows per head. The
  // first head of a group writes the dK, dV sums (beta 0), the others add (beta 1).
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    const float* beta = h % group == 0 ? &zero : &one;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(  // dVᵀ (D x keys) += dOᵀ (D x queries) · P'ᵀ
        handle, CUBLAS_OP_N, CUBLAS_OP_T, D, L, L, &one, d_o + h * D * elem, type, H * D,
        L * H * D,                                                 // dO of (row, head)
        p + h * L * L * elem, type, L, L * L * H,                  // P of (row, head)
        beta, dv_sum + kvh * D, CUDA_R_32F, KVH * D, L * KVH * D,  // dV sum of (row, KV head)
        rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(  // dP' (keys x queries) = V (keys x D) · dOᵀ
        handle, CUBLAS_OP_T, CUBLAS_OP_N, L, L, D, &one, v + kvh * D * elem, type, KVH * D,
        L * KVH * D,                                      // V of (row, KV head)
        d_o + h * D * elem, type, H * D, L * H * D,       // dO of (row, head)
        &zero, dp + h * L * L, CUDA_R_32F, L, L * L * H,  // dP of (row, head)
        rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  const std::int64_t queries = std::int64_t(rows) * H * L;
  constexpr int block = 256;
  const auto blocks = static_cast<unsigned>((queries * 32 + block - 1) / block);
  const LayoutView lv = layout_.view();
  const auto* delta = static_cast<const float*>(g.delta.data());
  if (problem_.dtype == DType::bf16)
    masked_score_gradients<<<blocks, block, 0, stream>>>(lv, int(L), H, reinterpret_cast<const __nv_bfloat16*>(p), dp,
                                                         delta, reinterpret_cast<__nv_bfloat16*>(ds));
  else
    masked_score_gradients<<<blocks, block, 0, stream>>>(lv, int(L), H, reinterpret_cast<const __half*>(p), dp, delta,
                                                         reinterpret_cast<__half*>(ds));
  CUDA_CHECK_LAUNCH();
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    const float* beta = h % group == 0 ? &zero : &one;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(  // dQᵀ (D x queries) = scale · Kᵀ (D x keys) · dS'
        handle, CUBLAS_OP_N, CUBLAS_OP_N, D, L, L, &scale, k + kvh * D * elem, type, KVH * D,
        L * KVH * D,                                       // K of (row, KV head)
        ds + h * L * L * elem, type, L, L * L * H,         // dS of (row, head)
        &zero, dq + h * D * elem, type, H * D, L * H * D,  // dQ of (row, head)
        rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(  // dKᵀ (D x keys) += scale · Qᵀ (D x queries) · dS'ᵀ
        handle, CUBLAS_OP_N, CUBLAS_OP_T, D, L, L, &scale, q + h * D * elem, type, H * D,
        L * H * D,                                                 // Q of (row, head)
        ds + h * L * L * elem, type, L, L * L * H,                 // dS of (row, head)
        beta, dk_sum + kvh * D, CUDA_R_32F, KVH * D, L * KVH * D,  // dK sum of (row, KV head)
        rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  const std::int64_t kv_values = positions * KVH * D;
  convert_from_fp32(dk_sum, g.dk.data(), kv_values, 1.f, problem_.dtype, stream);
  convert_from_fp32(dv_sum, g.dv.data(), kv_values, 1.f, problem_.dtype, stream);
}

}  // namespace attnlab
