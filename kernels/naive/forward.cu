// naive: the IO-unaware baseline. The whole score matrix of every (row, head)
// goes through device memory twice: S = scale·Q·Kᵀ in fp32 (cuBLAS), P =
// softmax(S) in the input dtype (a masking softmax kernel), then O = P·V (cuBLAS).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <type_traits>

#include "kernels/attention.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/naive/query.cuh"

namespace attnlab {

namespace {

int uniform_row_extent(const Layout& layout) {
  if (layout.has_query_side()) throw std::invalid_argument("naive runs a layout's own queries only, not a query side");
  const int extent = layout.longest_row();
  const LayoutView view = layout.view();
  for (int r = 0; r < layout.num_rows(); ++r)
    if (row_extent(view, r) != extent)
      throw std::invalid_argument("naive needs rows of one extent (a padded or packed layout)");
  return extent;
}

// One warp per query of one (row, head): P = softmax over the query's attended
// keys (by cell_kind), 0 elsewhere; LSE = max + ln(sum). S arrives scaled.
template <typename T>
__global__ void masked_softmax(LayoutView lv, int extent, int heads, const float* scores, T* probs, float* lse) {
  NaiveQuery w;
  if (!warp_query(lv, extent, heads, w)) return;
  const int lane = threadIdx.x % 32;
  const std::int64_t query = w.index;
  const int r = w.row, head = w.head, q = w.q;
  const float* s = scores + query * extent;
  T* out = probs + query * extent;

  float max = -INFINITY;
  for (int k = lane; k < extent; k += 32)
    if (attended(cell_kind(lv, r, q, k))) max = fmaxf(max, s[k]);
  for (int d = 16; d > 0; d /= 2) max = fmaxf(max, __shfl_xor_sync(0xffffffffu, max, d));
  float sum = 0.f;
  for (int k = lane; k < extent; k += 32)
    if (attended(cell_kind(lv, r, q, k))) sum += expf(s[k] - max);
  for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  for (int k = lane; k < extent; k += 32) {
    const float p = attended(cell_kind(lv, r, q, k)) ? expf(s[k] - max) * inv : 0.f;
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
      out[k] = __float2bfloat16_rn(p);
    else
      out[k] = __float2half_rn(p);
  }
  if (lane == 0) lse[(std::int64_t(lv.row_start[r]) + q) * heads + head] = sum > 0.f ? max + logf(sum) : -INFINITY;
}

}  // namespace

std::size_t naive_workspace_bytes(const Layout& layout, const AttentionProblem& problem) {
  const std::size_t extent = uniform_row_extent(layout);
  const std::size_t cells = std::size_t(layout.num_rows()) * problem.heads * extent * extent;
  return cells * (sizeof(float) + dtype_bytes(problem.dtype));  // S in fp32, P in the dtype
}

NaiveAttention::NaiveAttention(const DeviceLayout& layout, const AttentionProblem& problem)
    : layout_(layout), problem_(problem) {
  problem_.validate();
  const std::size_t needed = naive_workspace_bytes(layout.host(), problem_);
  require_device_memory(needed, "naive's S and P need");
  const std::size_t cells = needed / (sizeof(float) + dtype_bytes(problem_.dtype));
  scores_ = DeviceBuffer(cells * sizeof(float));
  probs_ = DeviceBuffer(cells * dtype_bytes(problem_.dtype));
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  cublas_ = handle;
}

NaiveAttention::~NaiveAttention() {
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
}

void NaiveAttention::run(AttentionTensors& t, cudaStream_t stream) {
  const Layout& host = layout_.host();
  if (t.positions != host.buffer_tokens())
    throw std::invalid_argument("naive: tensors hold " + std::to_string(t.positions) + " positions, the layout " +
                                std::to_string(host.buffer_tokens()));
  const int rows = host.num_rows();
  if (rows == 0) return;
  const long long L = uniform_row_extent(host);
  const int H = problem_.heads, KVH = problem_.kv_heads, D = problem_.head_dim;
  const int group = H / KVH;
  const std::size_t elem = dtype_bytes(problem_.dtype);
  const cudaDataType_t type = problem_.dtype == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  auto handle = static_cast<cublasHandle_t>(cublas_);
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  auto* q = static_cast<char*>(t.q.data());
  auto* k = static_cast<char*>(t.k.data());
  auto* v = static_cast<char*>(t.v.data());
  auto* o = static_cast<char*>(t.o.data());
  auto* s = static_cast<float*>(scores_.data());
  auto* p = static_cast<char*>(probs_.data());
  const float scale = problem_.softmax_scale(), one = 1.f, zero = 0.f;

  // cuBLAS is column-major: a row-major [token][dim] matrix with row stride ld is
  // its transpose, so S (row-major [query][key]) = (K·Qᵀ) column-major, and
  // O (row-major [query][dim]) = (V_cm · P_cm) column-major. One batched call
  // per head, batched over rows.
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, L, L, D, &scale, k + kvh * D * elem, type,
                                            KVH * D, L * KVH * D,  // A = K (D x L per row, transposed)
                                            q + h * D * elem, type, H * D, L * H * D,        // B = Q (D x L per row)
                                            &zero, s + h * L * L, CUDA_R_32F, L, L * L * H,  // C = S of (row, head)
                                            rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  const std::int64_t queries = std::int64_t(rows) * H * L;
  constexpr int block = 256;
  const auto blocks = static_cast<unsigned>((queries * 32 + block - 1) / block);
  const LayoutView lv = layout_.view();
  if (problem_.dtype == DType::bf16)
    masked_softmax<<<blocks, block, 0, stream>>>(lv, int(L), H, s, reinterpret_cast<__nv_bfloat16*>(p),
                                                 static_cast<float*>(t.lse.data()));
  else
    masked_softmax<<<blocks, block, 0, stream>>>(lv, int(L), H, s, reinterpret_cast<__half*>(p),
                                                 static_cast<float*>(t.lse.data()));
  CUDA_CHECK_LAUNCH();
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, D, L, L, &one, v + kvh * D * elem, type,
                                            KVH * D, L * KVH * D,  // A = V (D x L per row)
                                            p + h * L * L * elem, type, L,
                                            L * L * H,  // B = P (L x L per row, column-major = Pᵀ)
                                            &zero, o + h * D * elem, type, H * D, L * H * D,  // C = O (D x L per row)
                                            rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace attnlab
