#include "run/nccl_comm.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <stdexcept>

#include "kernels/common/cuda_check.hpp"

namespace attnlab {

namespace {

void nccl_check(ncclResult_t result, const char* call) {
  if (result != ncclSuccess) throw std::runtime_error(std::string(call) + ": " + ncclGetErrorString(result));
}

#define NCCL_CHECK(call) nccl_check((call), #call)

ncclComm_t as_comm(void* comm) { return static_cast<ncclComm_t>(comm); }

}  // namespace

static_assert(sizeof(NcclId::bytes) == sizeof(ncclUniqueId));

NcclId NcclComm::make_id() {
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  NcclId out;
  std::memcpy(out.bytes.data(), &id, sizeof id);
  return out;
}

std::string NcclComm::version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z from 2.9 on.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

NcclComm::NcclComm(const NcclId& id, int ranks, int rank) : one_value_(sizeof(float)) {
  ncclUniqueId unique;
  std::memcpy(&unique, id.bytes.data(), sizeof unique);
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, ranks, unique, rank));
  comm_ = comm;
}

NcclComm::NcclComm(const NcclComm& parent, int max_channels) : one_value_(sizeof(float)) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.maxCTAs = max_channels;
  int rank = 0;
  NCCL_CHECK(ncclCommUserRank(as_comm(parent.comm_), &rank));
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommSplit(as_comm(parent.comm_), 0, rank, &comm, &config));
  comm_ = comm;
}

NcclComm::~NcclComm() { ncclCommDestroy(as_comm(comm_)); }

NcclBuffer::NcclBuffer(std::size_t bytes, const NcclComm* registered_with)
    : bytes_(bytes), comm_(registered_with), plain_(registered_with ? 0 : bytes) {
  if (!comm_ || bytes_ == 0) return;
  require_device_memory(bytes_, "needs");
  NCCL_CHECK(ncclMemAlloc(&registered_, bytes_));
  if (const ncclResult_t r = ncclCommRegister(as_comm(comm_->comm_), registered_, bytes_, &handle_); r != ncclSuccess) {
    ncclMemFree(registered_);
    nccl_check(r, "ncclCommRegister");
  }
}

NcclBuffer::~NcclBuffer() {
  if (!registered_) return;
  ncclCommDeregister(as_comm(comm_->comm_), handle_);
  ncclMemFree(registered_);
}

void NcclComm::send(const void* data, std::size_t bytes, int peer, cudaStream_t stream) {
  NCCL_CHECK(ncclSend(data, bytes, ncclUint8, peer, as_comm(comm_), stream));
}

void NcclComm::recv(void* data, std::size_t bytes, int peer, cudaStream_t stream) {
  NCCL_CHECK(ncclRecv(data, bytes, ncclUint8, peer, as_comm(comm_), stream));
}

void NcclComm::grouped(const std::function<void()>& calls) {
  NCCL_CHECK(ncclGroupStart());
  try {
    calls();
  } catch (...) {
    ncclGroupEnd();  // the group is closed either way; the first error is the one to report
    throw;
  }
  NCCL_CHECK(ncclGroupEnd());
}

void NcclComm::barrier() {
  NCCL_CHECK(ncclAllReduce(one_value_.data(), one_value_.data(), 1, ncclFloat32, ncclSum, as_comm(comm_), nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace attnlab
