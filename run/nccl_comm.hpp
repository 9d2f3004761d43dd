#pragma once
// One rank's NCCL communicator: the few calls a context-parallel run makes (point-to-point
// sends and receives, grouped; a barrier), each checked. NCCL itself is opened on first use
// (run/nccl_on_demand.cpp); without it, or in a build without CUDA, the first call throws
// NoGpuError. One process per GPU: two ranks cannot share a GPU in NCCL.
#include <array>
#include <cstddef>
#include <functional>
#include <string>

#include "kernels/attention.hpp"

namespace attnlab {

// The bytes one rank makes and every rank passes to NcclComm (NCCL's ncclUniqueId).
struct NcclId {
  std::array<char, 128> bytes{};
};

class NcclComm {
 public:
  // A new id, on the rank that hands it to the others.
  static NcclId make_id();
  // "2.28.9": the version of the NCCL library opened.
  static std::string version();

  // Joins the group of `ranks` as `rank` on the current CUDA device; returns once every rank has.
  NcclComm(const NcclId& id, int ranks, int rank);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  // Bytes to or from `peer`, on `stream`. Inside grouped(), sends and receives to several peers
  // progress together; alone, each waits for its match.
  void send(const void* data, std::size_t bytes, int peer, cudaStream_t stream);
  void recv(void* data, std::size_t bytes, int peer, cudaStream_t stream);
  // `calls` (sends and receives) as one NCCL group.
  void grouped(const std::function<void()>& calls);
  // Returns when every rank has reached this point and its GPU has run all it was given
  // before (an all-reduce of one value on the legacy default stream, then a device wait).
  void barrier();

 private:
  DeviceBuffer one_value_;  // the barrier's float
  void* comm_ = nullptr;    // ncclComm_t
};

}  // namespace attnlab
