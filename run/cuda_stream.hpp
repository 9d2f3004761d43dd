#pragma once
// A CUDA stream that does not wait for the legacy default stream, destroyed however the work
// that uses it ends.
#include <cuda_runtime.h>

#include "kernels/common/cuda_check.hpp"

namespace attnlab::detail {

class NonBlockingStream {
 public:
  NonBlockingStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~NonBlockingStream() { cudaStreamDestroy(stream_); }
  NonBlockingStream(const NonBlockingStream&) = delete;
  NonBlockingStream& operator=(const NonBlockingStream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace attnlab::detail
