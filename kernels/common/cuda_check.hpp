#pragma once
// Every CUDA and cuBLAS call goes through these: a failure throws with the
// call's file:line and the library's own error string.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace attnlab::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " + cudaGetErrorName(err) +
                           " (" + cudaGetErrorString(err) + ")");
}

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                           cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

}  // namespace attnlab::detail

#define CUDA_CHECK(call)                                                                                           \
  do {                                                                                                             \
    const cudaError_t attnlab_err_ = (call);                                                                       \
    if (attnlab_err_ != cudaSuccess) ::attnlab::detail::throw_cuda_error(attnlab_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: the launch's own error (bad configuration), not its completion.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call)                                                               \
  do {                                                                                   \
    const cublasStatus_t attnlab_status_ = (call);                                       \
    if (attnlab_status_ != CUBLAS_STATUS_SUCCESS)                                        \
      ::attnlab::detail::throw_cublas_error(attnlab_status_, #call, __FILE__, __LINE__); \
  } while (0)
