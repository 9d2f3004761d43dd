// The NCCL functions run/nccl_comm.cpp calls, defined here and forwarded to libnccl opened on
// first use (dlopen): attnlab links without NCCL, and only `attnlab cp --run --nccl` needs it.
// PyTorch's wheels carry it outside the loader's path, hence the hint.
#include <nccl.h>

#include <string>

#include "kernels/common/library_on_demand.hpp"

namespace attnlab {
namespace {

const LibraryOnDemand& nccl() {
  static const LibraryOnDemand library(
      "libnccl.so." + std::to_string(NCCL_MAJOR), "running ranks over NCCL",
      "; put its folder on LD_LIBRARY_PATH (PyTorch's: the lib folder beside python3 -c 'import nvidia.nccl as n; "
      "print(n.__path__[0])')");
  return library;
}

}  // namespace
}  // namespace attnlab

#define ATTNLAB_FORWARD_TO_NCCL(name, ...) ATTNLAB_FORWARD_TO(attnlab::nccl(), decltype(name), name, __VA_ARGS__)

extern "C" {

ncclResult_t ncclGetVersion(int* version) { ATTNLAB_FORWARD_TO_NCCL(ncclGetVersion, version); }

ncclResult_t ncclGetUniqueId(ncclUniqueId* unique_id) { ATTNLAB_FORWARD_TO_NCCL(ncclGetUniqueId, unique_id); }

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId comm_id, int rank) {
  ATTNLAB_FORWARD_TO_NCCL(ncclCommInitRank, comm, nranks, comm_id, rank);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) { ATTNLAB_FORWARD_TO_NCCL(ncclCommDestroy, comm); }

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config) {
  ATTNLAB_FORWARD_TO_NCCL(ncclCommSplit, comm, color, key, newcomm, config);
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  ATTNLAB_FORWARD_TO_NCCL(ncclCommUserRank, comm, rank);
}

ncclResult_t ncclMemAlloc(void** ptr, size_t size) { ATTNLAB_FORWARD_TO_NCCL(ncclMemAlloc, ptr, size); }

ncclResult_t ncclMemFree(void* ptr) { ATTNLAB_FORWARD_TO_NCCL(ncclMemFree, ptr); }

ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t size, void** handle) {
  ATTNLAB_FORWARD_TO_NCCL(ncclCommRegister, comm, buff, size, handle);
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* handle) {
  ATTNLAB_FORWARD_TO_NCCL(ncclCommDeregister, comm, handle);
}

const char* ncclGetErrorString(ncclResult_t result) { ATTNLAB_FORWARD_TO_NCCL(ncclGetErrorString, result); }

ncclResult_t ncclGroupStart() { ATTNLAB_FORWARD_TO_NCCL(ncclGroupStart, ); }

ncclResult_t ncclGroupEnd() { ATTNLAB_FORWARD_TO_NCCL(ncclGroupEnd, ); }

ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  ATTNLAB_FORWARD_TO_NCCL(ncclSend, sendbuff, count, datatype, peer, comm, stream);
}

ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  ATTNLAB_FORWARD_TO_NCCL(ncclRecv, recvbuff, count, datatype, peer, comm, stream);
}

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  ATTNLAB_FORWARD_TO_NCCL(ncclAllReduce, sendbuff, recvbuff, count, datatype, op, comm, stream);
}

}  // extern "C"
