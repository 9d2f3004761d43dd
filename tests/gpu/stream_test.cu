// The flash kernels run on the stream they are given, forward and backward (every step of
// the backward: Δ, the kernel, dQ's conversion). A non-blocking stream is held back by a
// spin kernel and only then gets Q and dO copied in: a launch on any other stream would
// read them before they arrive (still poison) and write NaN. Two such streams at once
// share one layout, each run with its own tensors and work counter.
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/backward.hpp"
#include "kernels/common/cuda_check.hpp"
#include "reference/attention_inputs.hpp"
#include "run/cuda_stream.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace attnlab::test {
namespace {

// Keeps one thread busy for `cycles` clock cycles (about 0.1 s at 2e8 on an H100).
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}

using detail::NonBlockingStream;

void copy_on(DeviceBuffer& to, const DeviceBuffer& from, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToDevice, stream));
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / norm);
}

// One run's tensors: the inputs' K and V; Q, dO and every output poisoned until the
// stream copies Q and dO in.
struct StreamRun {
  AttentionTensors t;
  GradientTensors g;
  StreamRun(const AttentionTensors& inputs, const AttentionProblem& p)
      : t(inputs.positions, p), g(inputs.positions, p) {
    for (DeviceBuffer* b : {&t.q, &t.o, &t.lse, &g.d_o, &g.dq, &g.dk, &g.dv, &g.delta, &g.dq_accum}) b->poison();
    copy_on(t.k, inputs.k, nullptr);
    copy_on(t.v, inputs.v, nullptr);
  }
};

TEST(Streams, FlashKernelsRunOnTheStreamTheyAreGiven) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 4;
  p.kv_heads = 2;
  const Layout layout = make_varlen_layout({300, 1, 513, 64, 1100}, true);
  const AttentionInputs inputs =
      make_random_inputs(layout.buffer_tokens(), p.heads, p.kv_heads, p.head_dim, p.dtype, 21);
  for (FlashKernel kernel : test_kernels()) {
    SCOPED_TRACE(flash_kernel_info(kernel).name);
    const bool backward = flash_kernel_info(kernel).has_backward;
    const DeviceLayout device_layout(layout, kernel_tile(kernel));
    // The same run on the default stream, for the expected outputs.
    AttentionTensors expected(layout.buffer_tokens(), p);
    upload_qkv(expected, p.dtype, inputs.q, inputs.k, inputs.v);
    GradientTensors expected_g(layout.buffer_tokens(), p);
    upload_d_o(expected_g, p.dtype, make_random_grad_output(inputs, 22));
    run_flash(kernel, device_layout, p, expected);
    if (backward) run_flash_backward(kernel, device_layout, p, expected, expected_g);

    StreamRun runs[2] = {{expected, p}, {expected, p}};
    NonBlockingStream streams[2];
    CUDA_CHECK(cudaDeviceSynchronize());  // the default stream's work done: the streams do not wait for it
    for (int i = 0; i < 2; ++i) {
      spin<<<1, 1, 0, streams[i]>>>(200'000'000);
      CUDA_CHECK_LAUNCH();
      copy_on(runs[i].t.q, expected.q, streams[i]);
      copy_on(runs[i].g.d_o, expected_g.d_o, streams[i]);
    }
    for (int i = 0; i < 2; ++i) {
      run_flash(kernel, device_layout, p, runs[i].t, streams[i]);
      if (backward) run_flash_backward(kernel, device_layout, p, runs[i].t, runs[i].g, streams[i]);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    for (const StreamRun& run : runs) {
      EXPECT_EQ(download_o(run.t, p.dtype), download_o(expected, p.dtype));
      EXPECT_EQ(download_lse(run.t), download_lse(expected));
      if (!backward) continue;
      const HostGradients got = download_gradients(run.g, p.dtype), want = download_gradients(expected_g, p.dtype);
      EXPECT_EQ(got.dk, want.dk);
      EXPECT_EQ(got.dv, want.dv);
      EXPECT_LT(rel_l2(got.dq, want.dq), 4e-3) << "dQ is summed by atomics, in any order, then rounded";
    }
  }
}

// Each run brings its own work counter (AttentionViews::work_counter): views without one
// are refused before any launch.
TEST(Streams, ViewsWithoutAWorkCounterAreRefused) {
  ATTNLAB_REQUIRE_GPU();
  AttentionProblem p;
  p.heads = 2;
  p.kv_heads = 2;
  const Layout layout = make_varlen_layout({70}, true);
  const FlashKernel kernel = test_kernel();
  const DeviceLayout device_layout(layout, kernel_tile(kernel));
  AttentionTensors t(layout.buffer_tokens(), p);
  AttentionViews views = t;
  views.work_counter = nullptr;
  EXPECT_THROW(run_flash(kernel, device_layout, p, views), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::test
