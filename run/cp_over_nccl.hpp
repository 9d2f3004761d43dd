#pragma once
// A context-parallel forward as it runs on N GPUs: one process per rank (run/rank_processes.hpp),
// rank r on GPU r, K/V sent between them by NCCL (run/nccl_comm.hpp). By ring, a rank computes
// step s (the K/V of rank (r - s) mod N) on one stream while another stream sends that K/V on
// to rank r + 1 and receives the next from rank r - 1 into the other of two buffers; by
// all-gather, it receives every other rank's shard, then computes its one step. Each rank
// times, from a barrier of all ranks, its run (wall), its kernels in it, its transfers, and
// its compute alone (the same steps with no transfer); and checks its merged output against
// the whole varlen forward on its own GPU. The received buffers are poisoned first, so K/V
// that did not arrive cannot pass the check.
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/scenario/scenario.hpp"
#include "run/cp_timing.hpp"

namespace attnlab {

// Every plan (one a strategy, all of N = plans' ranks) by ring and by all-gather, on seeded
// random Q, K, V of the scenario's shape, through `kernel_name` (--kernel's value; empty: the
// fastest the GPUs run): `warmup` untimed runs, then `reps` timed, of each. A ring step with a
// transfer beside it leaves `settings.sm_margin` SMs to it (AttentionViews::sm_margin); the ring's
// transfers run on at most `settings.transfer_channels` NCCL channels where it is not 0 (a
// communicator of their own, so the all-gather keeps NCCL's choice); with
// `settings.registered_buffers` every buffer sent or received is registered with NCCL (NcclBuffer).
// Call it before this process touches CUDA. Throws NoGpuError with fewer than N GPUs, without NCCL
// or in a build without CUDA; a rank's error as run_rank_processes throws it.
CpTimes time_context_parallel_over_nccl(const Scenario& scenario, const std::vector<CpPlan>& plans,
                                        std::string_view kernel_name, int warmup, int reps, std::uint64_t seed,
                                        CpTransferSettings settings = {});

}  // namespace attnlab
