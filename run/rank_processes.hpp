#pragma once
// The ranks of one job as processes of this program, one each, as NCCL wants them (one process
// per GPU). They are forked from the calling process, which must not have touched CUDA: a CUDA
// context does not survive fork, and a child inherits the parent's memory (the scenario, the
// plans) without serializing it. Results come back through shared memory.
#include <cstddef>
#include <functional>
#include <vector>

namespace attnlab {

// What a rank's body reaches: its rank, and the handoff of one value from rank 0.
class RankContext {
 public:
  RankContext(int rank, int ranks, std::vector<int> handoff_fds, void* result);
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // Rank 0 passes `bytes` at `data` to every other rank, which waits here and receives them
  // into `data`. Throws std::runtime_error on a rank when rank 0 ended without passing them.
  void share_from_rank0(void* data, std::size_t bytes);
  // This rank's result: the bytes run_rank_processes copies out once every rank has ended.
  void* result() const { return result_; }

 private:
  int rank_, ranks_;
  std::vector<int> handoff_fds_;  // rank 0: a write end per other rank; the others: their read end
  void* result_;
};

// Runs `body` in `ranks` forked processes and waits for them all; returns each rank's
// `result_bytes` of result, rank after rank. A rank whose body throws ends with the code its
// exception gets in program_exit.hpp, and its message is kept; once one rank has failed the
// others are stopped (a collective would wait for it forever), and its error is thrown here as
// the same type (InputError, NoGpuError or std::runtime_error), "rank R: MESSAGE".
std::vector<std::byte> run_rank_processes(int ranks, std::size_t result_bytes,
                                          const std::function<void(RankContext&)>& body);

}  // namespace attnlab
