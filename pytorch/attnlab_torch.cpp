// attnlab's flash forward and backward as PyTorch operators, torch.ops.attnlab.flash_forward
// and flash_backward, run on PyTorch's own tensors (no copy). The sequences (varlen
// documents, or packed rows as sequences of the row length) and the window make a layout,
// built once on the host and uploaded with its work lists; the operators name it by the
// integer make_layout returns, so a compiled graph holds a constant, not a host object.
// attnlab/ops.py loads this file, adds the fake (shape-only) functions and autograd.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/io/input_limits.hpp"
#include "kernels/attention.hpp"
#include "kernels/backward.hpp"
#include "kernels/kernel_choice.hpp"

namespace {

using at::Tensor;
using namespace attnlab;

// One registered layout. Held by unique_ptr so that `device`, which points at `host`, stays valid.
struct TorchLayout {
  Layout host;
  FlashKernel kernel = FlashKernel::mma_sm80;
  std::unique_ptr<DeviceLayout> device;
  int device_index = 0;
};

std::mutex registry_mutex;
std::vector<std::unique_ptr<TorchLayout>> registry;  // index = handle; layouts live as long as the process

// Refusals are std::runtime_error with a message built here (PyTorch and pybind11 both raise
// RuntimeError from it). With PyTorch 2.11 on the GPU machine, a TORCH_CHECK whose message
// formats a number crashes the process (results/h100/logs/step/operator-bad-inputs.sh), so
// no number goes through c10::str.
[[noreturn]] void refuse(const std::string& message) { throw std::runtime_error("attnlab: " + message); }

std::string n(std::int64_t value) { return std::to_string(value); }

std::string shape_text(const Tensor& t) {
  std::string text = "(";
  for (std::int64_t d = 0; d < t.dim(); ++d) text += (d ? ", " : "") + n(t.size(d));
  return text + ")";
}

const TorchLayout& registered(std::int64_t handle) {
  const std::lock_guard lock(registry_mutex);
  if (handle < 0 || handle >= std::int64_t(registry.size()))
    refuse("no layout " + n(handle) + "; make one with make_layout");
  return *registry[std::size_t(handle)];
}

// Causal attention over sequences of `lengths` tokens, one buffer of all of them, each
// query at most `window_left` keys back (-1: the whole sequence), on the current device,
// by `kernel` ("" = the fastest this GPU and build run with a backward).
std::int64_t make_layout(const std::vector<std::int64_t>& lengths, std::int64_t window_left,
                         const std::string& kernel) {
  if (lengths.empty()) refuse("make_layout needs at least one sequence");
  std::vector<int> sequences;
  std::int64_t tokens = 0;
  for (const std::int64_t l : lengths) {
    if (l <= 0 || l > max_row_length) refuse("a sequence length must be 1 to " + n(max_row_length) + ", got " + n(l));
    tokens += l;
    sequences.push_back(int(l));
  }
  if (tokens > max_tokens) refuse("at most " + n(max_tokens) + " tokens in one layout, got " + n(tokens));
  if (window_left < -1 || window_left > max_window)
    refuse("window_left must be -1 (none) or 0 to " + n(max_window) + ", got " + n(window_left));
  const cudaDeviceProp* gpu = at::cuda::getCurrentDeviceProperties();
  auto entry = std::make_unique<TorchLayout>();
  entry->device_index = c10::cuda::current_device();
  entry->host =
      make_varlen_layout(sequences, /*causal=*/true, window_left < 0 ? Window{} : Window{int(window_left), 0});
  entry->kernel = choose_flash_kernel(kernel, gpu->major * 10 + gpu->minor, "kernel", /*backward=*/true);
  entry->device = std::make_unique<DeviceLayout>(entry->host, kernel_tile(entry->kernel));
  const std::lock_guard lock(registry_mutex);
  registry.push_back(std::move(entry));
  return std::int64_t(registry.size()) - 1;
}

std::string layout_kernel(std::int64_t handle) { return flash_kernel_info(registered(handle).kernel).name; }
std::int64_t layout_positions(std::int64_t handle) { return registered(handle).host.buffer_tokens(); }

void check_tensor(const Tensor& t, const char* name, const TorchLayout& l, std::int64_t heads, std::int64_t dim,
                  at::ScalarType dtype) {
  const std::string what = name;
  if (!t.is_cuda() || t.get_device() != l.device_index)
    refuse(what + " must be on cuda:" + n(l.device_index) + " (the layout's device)");
  if (t.dim() != 3 || t.size(0) != l.host.buffer_tokens() || t.size(1) != heads || t.size(2) != dim)
    refuse(what + " must be (" + n(l.host.buffer_tokens()) + ", " + n(heads) + ", " + n(dim) + "), got " +
           shape_text(t));
  if (t.scalar_type() != dtype)
    refuse(what + " must be " + c10::toString(dtype) + ", got " + c10::toString(t.scalar_type()));
  if (!t.is_contiguous()) refuse(what + " must be contiguous");
  if (reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 != 0)
    refuse(what + " must start on a 16-byte boundary (the kernels load 16 bytes at a time)");
}

// The problem q and k describe, q, k and v checked against the layout; the caller checks the
// others. `scale` unset: 1/sqrt(head_dim).
AttentionProblem problem_of(const TorchLayout& l, const Tensor& q, const Tensor& k, const Tensor& v,
                            std::optional<double> scale) {
  if (q.dim() != 3 || k.dim() != 3) refuse("q, k and v must be (positions, heads, head_dim)");
  if (q.scalar_type() != at::kBFloat16 && q.scalar_type() != at::kHalf) refuse("q must be bfloat16 or float16");
  AttentionProblem p;
  p.dtype = q.scalar_type() == at::kBFloat16 ? DType::bf16 : DType::fp16;
  p.heads = int(q.size(1));
  p.kv_heads = int(k.size(1));
  p.head_dim = int(q.size(2));
  if (scale) p.scale = checked_softmax_scale(*scale);
  p.validate();
  check_tensor(q, "q", l, p.heads, p.head_dim, q.scalar_type());
  check_tensor(k, "k", l, p.kv_heads, p.head_dim, q.scalar_type());
  check_tensor(v, "v", l, p.kv_heads, p.head_dim, q.scalar_type());
  return p;
}

// The forward's work counter lives in `work_counter` (one int32 of its own per call, so that
// calls on several streams at once do not share one).
AttentionViews views_of(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse,
                        const Tensor& work_counter = {}) {
  AttentionViews t;
  t.positions = q.size(0);
  t.q = q.data_ptr();
  t.k = k.data_ptr();
  t.v = v.data_ptr();
  t.o = out.data_ptr();
  t.lse = lse.data_ptr<float>();
  t.work_counter = work_counter.defined() ? work_counter.data_ptr<int>() : nullptr;
  return t;
}

// PyTorch's current stream on the layout's device: the kernels run there, ordered after
// whatever the caller queued on it.
cudaStream_t current_stream(const TorchLayout& l) { return at::cuda::getCurrentCUDAStream(l.device_index).stream(); }

// out (positions, heads, head_dim) in q's dtype and lse (positions, heads) fp32, natural log.
std::tuple<Tensor, Tensor> flash_forward(const Tensor& q, const Tensor& k, const Tensor& v, std::int64_t layout,
                                         std::optional<double> scale) {
  const TorchLayout& l = registered(layout);
  const AttentionProblem p = problem_of(l, q, k, v, scale);
  const c10::cuda::CUDAGuard guard(q.device());
  Tensor out = at::empty_like(q);
  Tensor lse = at::empty({q.size(0), q.size(1)}, q.options().dtype(at::kFloat));
  const Tensor work_counter = at::empty({1}, q.options().dtype(at::kInt));
  run_flash(l.kernel, *l.device, p, views_of(q, k, v, out, lse, work_counter), current_stream(l));
  return {out, lse};
}

// dq, dk, dv from the forward's inputs, out and lse and the gradient of out.
std::tuple<Tensor, Tensor, Tensor> flash_backward(const Tensor& grad_out, const Tensor& q, const Tensor& k,
                                                  const Tensor& v, const Tensor& out, const Tensor& lse,
                                                  std::int64_t layout, std::optional<double> scale) {
  const TorchLayout& l = registered(layout);
  const AttentionProblem p = problem_of(l, q, k, v, scale);
  check_tensor(out, "out", l, p.heads, p.head_dim, q.scalar_type());
  const Tensor d_o = grad_out.contiguous();
  check_tensor(d_o, "grad_out", l, p.heads, p.head_dim, q.scalar_type());
  if (!lse.is_cuda() || lse.get_device() != l.device_index)
    refuse("lse must be on cuda:" + n(l.device_index) + " (the layout's device)");
  if (lse.scalar_type() != at::kFloat || !lse.is_contiguous() || lse.dim() != 2 || lse.size(0) != q.size(0) ||
      lse.size(1) != q.size(1))
    refuse("lse must be the forward's contiguous float32 (positions, heads)");
  const c10::cuda::CUDAGuard guard(q.device());
  Tensor dq = at::empty_like(q), dk = at::empty_like(k), dv = at::empty_like(v);
  const auto fp32 = q.options().dtype(at::kFloat);
  Tensor delta = at::empty({q.size(0), q.size(1)}, fp32);
  Tensor dq_accum = at::empty({q.size(0), q.size(1), q.size(2)}, fp32);  // made ready by the backward itself
  Tensor dq_arrivals = at::empty({q.size(0), q.size(1)}, q.options().dtype(at::kInt));
  const Tensor work_counter = at::empty({1}, q.options().dtype(at::kInt));
  GradientViews g;
  g.positions = q.size(0);
  g.d_o = d_o.data_ptr();
  g.dq = dq.data_ptr();
  g.dk = dk.data_ptr();
  g.dv = dv.data_ptr();
  g.delta = delta.data_ptr<float>();
  g.dq_accum = dq_accum.data_ptr<float>();
  g.dq_arrivals = dq_arrivals.data_ptr<int>();
  g.work_counter = work_counter.data_ptr<int>();
  run_flash_backward(l.kernel, *l.device, p, views_of(q, k, v, out, lse), g, current_stream(l));
  return {dq, dk, dv};
}

}  // namespace

TORCH_LIBRARY(attnlab, m) {
  m.def("flash_forward(Tensor q, Tensor k, Tensor v, int layout, float? scale=None) -> (Tensor, Tensor)");
  m.def(
      "flash_backward(Tensor grad_out, Tensor q, Tensor k, Tensor v, Tensor out, Tensor lse, int layout, "
      "float? scale=None) -> (Tensor, Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(attnlab, CUDA, m) {
  m.impl("flash_forward", &flash_forward);
  m.impl("flash_backward", &flash_backward);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("make_layout", &make_layout, "Register a causal layout of sequences (lengths) with a left window (-1: none)",
        pybind11::arg("lengths"), pybind11::arg("window_left") = -1, pybind11::arg("kernel") = "");
  m.def("layout_kernel", &layout_kernel, "The flash kernel a layout runs (the results' kernel column)");
  m.def("layout_positions", &layout_positions, "Buffer positions of a layout: the tokens of q, k and v");
}
