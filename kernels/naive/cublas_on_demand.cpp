// The six cuBLAS functions naive calls, defined here and forwarded to libcublas opened on
// first use (dlopen), so that a command that never runs naive (attnlab --help, model, step,
// run --implementations varlen) does not load cuBLAS's libraries, hundreds of megabytes,
// at start. The call sites and their CUBLAS_CHECK stay as they are.
#include <cublas_api.h>

#include <string>

#include "kernels/common/library_on_demand.hpp"

namespace attnlab {
namespace {

// The library of the cuBLAS these kernels were compiled against, by its soname.
const LibraryOnDemand& cublas() {
  static const LibraryOnDemand library("libcublas.so." + std::to_string(CUBLAS_VER_MAJOR), "naive");
  return library;
}

}  // namespace
}  // namespace attnlab

#define ATTNLAB_FORWARD_TO_CUBLAS(Function, name, ...) \
  ATTNLAB_FORWARD_TO(attnlab::cublas(), Function, name, __VA_ARGS__)

// cublas_api.h overloads this name with an inline cudaDataType version: the library's is this one.
using GemmStridedBatchedEx = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const void*, const void*, cudaDataType, int, long long, const void*,
                                            cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                            long long, int, cublasComputeType_t, cublasGemmAlgo_t);

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
  ATTNLAB_FORWARD_TO_CUBLAS(decltype(cublasCreate_v2), cublasCreate_v2, handle);
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
  ATTNLAB_FORWARD_TO_CUBLAS(decltype(cublasDestroy_v2), cublasDestroy_v2, handle);
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  ATTNLAB_FORWARD_TO_CUBLAS(decltype(cublasSetStream_v2), cublasSetStream_v2, handle, stream);
}

const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) {
  ATTNLAB_FORWARD_TO_CUBLAS(decltype(cublasGetStatusName), cublasGetStatusName, status);
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
  ATTNLAB_FORWARD_TO_CUBLAS(decltype(cublasGetStatusString), cublasGetStatusString, status);
}

// NOLINTNEXTLINE(readability-function-size): cuBLAS's signature, 23 parameters
cublasStatus_t CUBLASWINAPI cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                                       cublasOperation_t transb, int m, int n, int k, const void* alpha,
                                                       const void* A, cudaDataType Atype, int lda, long long strideA,
                                                       const void* B, cudaDataType Btype, int ldb, long long strideB,
                                                       const void* beta, void* C, cudaDataType Ctype, int ldc,
                                                       long long strideC, int batchCount,
                                                       cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  ATTNLAB_FORWARD_TO_CUBLAS(GemmStridedBatchedEx, cublasGemmStridedBatchedEx, handle, transa, transb, m, n, k, alpha, A,
                            Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount,
                            computeType, algo);
}

}  // extern "C"
