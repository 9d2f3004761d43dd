#pragma once
// Host API of the backward pass: plain C++, no CUDA types (as attention.hpp).
// Given what the forward saved (Q, K, V, O and LSE in an AttentionTensors) and
// dO, the gradient of the loss with respect to O, a backward writes dQ, dK and dV
// in the same buffer order and dtype as Q, K and V:
//   P = exp(scale·QKᵀ − LSE) over attended cells, dV = Pᵀ·dO, dP = dO·Vᵀ,
//   dS = P∘(dP − Δ) with Δ = rowsum(dO∘O), dQ = scale·dS·K, dK = scale·dSᵀ·Q;
// with grouped-query attention, dK and dV of a KV head are summed over its query heads.
// Padding positions get dQ = dK = dV = 0. The flash backward never reads dO at
// padding; naive's GEMMs do, so keep it finite there (e.g. zero), as Q, K and V.
#include <cstdint>
#include <vector>

#include "kernels/attention.hpp"

namespace attnlab {

// dO in, dQ, dK, dV out, and the workspace both backwards share. Throws
// GpuMemoryError (the bytes of all of them needed vs free) before allocating any.
struct GradientTensors {
  GradientTensors(std::int64_t positions, const AttentionProblem& problem);
  std::int64_t positions;
  DeviceBuffer d_o;           // [position][head][head_dim], the dtype (the input)
  DeviceBuffer dq;            // like Q
  DeviceBuffer dk, dv;        // like K and V: [position][kv_head][head_dim]
  DeviceBuffer delta;         // workspace: Δ = rowsum(dO∘O), fp32 [position][head]
  DeviceBuffer dq_accum;      // workspace of the flash backward: dQ / scale in fp32, where the steps sum their dQ
  DeviceBuffer dq_arrivals;   // workspace: int32 [position][head], arrivals at the block of dQ sums starting there
  DeviceBuffer work_counter;  // workspace: what a backward that hands out items by atomics counts with
};

// The same by device address (as AttentionViews): a GradientTensors converts to it,
// and a framework's own tensors fill it in. delta, dq_accum, dq_arrivals and work_counter are
// the workspace (the counter one int32 of its own per backward running at one time).
struct GradientViews {
  std::int64_t positions = 0;
  const void* d_o = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  float* delta = nullptr;
  float* dq_accum = nullptr;
  int* dq_arrivals = nullptr;
  int* work_counter = nullptr;
  GradientViews() = default;
  GradientViews(const GradientTensors& g)  // implicit: a run on owned tensors passes them as they are
      : positions(g.positions),
        d_o(g.d_o.data()),
        dq(g.dq.data()),
        dk(g.dk.data()),
        dv(g.dv.data()),
        delta(static_cast<float*>(g.delta.data())),
        dq_accum(static_cast<float*>(g.dq_accum.data())),
        dq_arrivals(static_cast<int*>(g.dq_arrivals.data())),
        work_counter(static_cast<int*>(g.work_counter.data())) {}
};

// What GradientTensors allocates for `positions` buffer positions.
std::size_t gradient_tensor_bytes(std::int64_t positions, const AttentionProblem& problem);

// dO from floats that are values of the dtype (converted bit-exactly), and the
// gradients back as floats, each in its buffer order.
void upload_d_o(GradientTensors& gradients, DType dtype, const std::vector<float>& d_o);
struct HostGradients {
  std::vector<float> dq, dk, dv;
};
HostGradients download_gradients(const GradientTensors& gradients, DType dtype);

// flash backward for padded, packed and varlen (FlashAttention-2 style): P is
// recomputed from Q, K and the saved LSE tile by tile, nothing of size N² is
// kept. `kernel` is a flash kernel with has_backward (kernel_choice.hpp) whose
// tile the layout's work list is at: its backward walks that kernel's tiles.
// `forward` holds the inputs and the forward's O and LSE (run_flash's with any
// kernel, or any implementation's, over the same layout). Every step runs on `stream`,
// asynchronously. With `counts`, each CTA also adds count_tile of every (query tile, key
// tile, head) it visits, which is the forward's set of tiles, and the call waits for the
// stream to fill `counts`.
void run_flash_backward(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
                        const AttentionViews& forward, const GradientViews& gradients, cudaStream_t stream = nullptr,
                        KernelCounts* counts = nullptr);

// naive backward: the forward's P (kept by NaiveAttention, as eager attention
// keeps it for its backward) and, materialized beside it for every (row, head),
// dP = dO·Vᵀ in fp32 and dS in the dtype; dK and dV summed over a group's heads in
// fp32. Bytes beyond the gradient tensors, computed up front (rows of one extent, as naive).
std::size_t naive_backward_workspace_bytes(const Layout& layout, const AttentionProblem& problem);

class NaiveBackward {
 public:
  // Throws GpuMemoryError (bytes needed vs free) when the workspace does not fit.
  NaiveBackward(const DeviceLayout& layout, const AttentionProblem& problem);
  ~NaiveBackward();
  NaiveBackward(const NaiveBackward&) = delete;
  NaiveBackward& operator=(const NaiveBackward&) = delete;
  // `naive` ran the forward into `forward` over the same layout and problem. Asynchronous, on `stream`.
  void run(const NaiveAttention& naive, const AttentionTensors& forward, GradientTensors& gradients,
           cudaStream_t stream = nullptr);
  std::size_t workspace_bytes() const {
    return d_probs_.bytes() + d_scores_.bytes() + dk_accum_.bytes() + dv_accum_.bytes();
  }

 private:
  const DeviceLayout& layout_;
  AttentionProblem problem_;
  DeviceBuffer d_probs_;              // dP, fp32 [row][head][query][key]
  DeviceBuffer d_scores_;             // dS, the dtype, same shape
  DeviceBuffer dk_accum_, dv_accum_;  // fp32 [position][kv_head][head_dim]
  void* cublas_ = nullptr;
};

}  // namespace attnlab
