#pragma once
// One rank's NCCL communicator: the few calls a context-parallel run makes (point-to-point
// sends and receives, grouped; a barrier), each checked, and the buffers it can move without
// a staging copy. NCCL itself is opened on first use
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
  // The same ranks in a communicator of their own whose transfers run on at most `max_channels`
  // CTAs (NCCL's maxCTAs, which caps its point-to-point channels too). Every rank calls it.
  NcclComm(const NcclComm& parent, int max_channels);
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
  friend class NcclBuffer;
  DeviceBuffer one_value_;  // the barrier's float
  void* comm_ = nullptr;    // ncclComm_t
};

// Device memory a rank sends from or receives into. Registered with a communicator, it comes from
// NCCL's allocator and NCCL moves it straight between the two ranks' buffers, without the copy
// through its own staging buffers (zero-copy over NVLink); the ranks of a transfer must all
// register their buffers or none. Otherwise it is plain cudaMalloc'd memory. It must go before
// the communicator.
class NcclBuffer {
 public:
  NcclBuffer(std::size_t bytes, const NcclComm* registered_with);
  ~NcclBuffer();
  NcclBuffer(const NcclBuffer&) = delete;
  NcclBuffer& operator=(const NcclBuffer&) = delete;

  void* data() const { return comm_ ? registered_ : plain_.data(); }
  std::size_t bytes() const { return bytes_; }
  void poison() { poison_device_bytes(data(), bytes_); }

 private:
  std::size_t bytes_;
  const NcclComm* comm_;
  DeviceBuffer plain_;
  void* registered_ = nullptr;  // from ncclMemAlloc
  void* handle_ = nullptr;      // ncclCommRegister's
};

}  // namespace attnlab
