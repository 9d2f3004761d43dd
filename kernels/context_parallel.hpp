#pragma once
// Host API of a context-parallel rank's forward: plain C++, no CUDA types (as attention.hpp).
// A rank runs its query pieces against pieces of K/V (core/cost/cp_piece_layouts.hpp), one
// flash launch per round, whose epilogue folds each query's O and LSE into running sums:
//   lse = log(exp(lse_a) + exp(lse_b)),  o = exp(lse_a - lse)·o_a + exp(lse_b - lse)·o_b,
// reference/cp_partial.hpp's merge, in fp32 (kernels/common/output_sums.cuh). The sums after
// every piece of K/V a query attends are its whole forward's O and LSE.
#include <cstdint>
#include <vector>

#include "core/cost/cp_piece_layouts.hpp"
#include "kernels/attention.hpp"

namespace attnlab {

// A CpPieceLayouts on the device at a flash kernel's tile: a DeviceLayout per round, and
// the canonical token at each position of its Q and K/V buffers. The CpPieceLayouts must
// outlive it.
class DeviceCpPieces {
 public:
  DeviceCpPieces(const CpPieceLayouts& pieces, TileShape work_tile);
  const CpPieceLayouts& host() const { return *host_; }
  const std::vector<DeviceLayout>& rounds() const { return rounds_; }
  const std::int64_t* query_source() const { return static_cast<const std::int64_t*>(query_source_.data()); }
  const std::int64_t* key_source() const { return static_cast<const std::int64_t*>(key_source_.data()); }

 private:
  const CpPieceLayouts* host_;
  std::vector<DeviceLayout> rounds_;
  DeviceBuffer query_source_, key_source_;
};

// One step's Q (the rank's query pieces) and K, V (the step's key pieces) in the pieces'
// buffer order, gathered on the device from tensors in canonical token order (as a rank
// holds its own and receives the others'). Throws GpuMemoryError (the three's bytes vs
// free) before allocating; the gathers run on `stream`.
struct CpStepTensors {
  CpStepTensors(const DeviceCpPieces& pieces, const AttentionTensors& canonical, const AttentionProblem& problem,
                cudaStream_t stream = nullptr);
  DeviceBuffer q, k, v;
};

// One rank's O (fp32, [query][head][head_dim]) and LSE ([query][head], natural log) over
// the K/V added so far, for `queries` positions of its Q buffer; O is 0 where no key was added.
class CpOutputSums {
 public:
  // Throws GpuMemoryError (the bytes needed vs free) before allocating; then clear().
  CpOutputSums(std::int64_t queries, const AttentionProblem& problem);
  // No key yet: LSE = -inf (O is not read there, so it is not cleared). Asynchronous, on `stream`.
  void clear(cudaStream_t stream = nullptr);
  // Every round of `pieces` by `kernel` (its work lists at the kernel's tile) on q (the
  // pieces' query buffer, as many positions as these sums) and k, v (their key buffer),
  // each folded into the sums by the kernel's epilogue. Asynchronous, on `stream`; one `add` at a time per sums.
  // `sm_margin`: SMs the rounds leave free for a transfer beside them (AttentionViews::sm_margin).
  void add(FlashKernel kernel, const DeviceCpPieces& pieces, const void* q, const void* k, const void* v,
           cudaStream_t stream = nullptr, int sm_margin = 0);
  // O in the dtype and the LSE, where a whole forward of these queries writes them.
  void write(void* o, float* lse, cudaStream_t stream = nullptr) const;
  std::vector<float> download_o() const;
  std::vector<float> download_lse() const;
  std::int64_t queries() const { return queries_; }
  const AttentionProblem& problem() const { return problem_; }

 private:
  std::int64_t queries_;
  AttentionProblem problem_;
  DeviceBuffer o_, lse_;  // the sums, fp32
  DeviceBuffer work_counter_;
};

}  // namespace attnlab
