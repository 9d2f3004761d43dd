#include "run/cp_over_nccl.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/io/input_error.hpp"

#ifdef ATTNLAB_HAS_CUDA
#include <cuda_runtime.h>

#include <deque>
#include <optional>
#include <stdexcept>

#include "kernels/common/cuda_check.hpp"
#include "kernels/kernel_choice.hpp"
#include "run/cp_rank_steps.hpp"
#include "run/cuda_events.hpp"
#include "run/cuda_stream.hpp"
#include "run/nccl_comm.hpp"
#include "run/rank_processes.hpp"
#endif

namespace attnlab {

#ifdef ATTNLAB_HAS_CUDA

namespace {

// What a rank hands back through shared memory: plain bytes, so fixed sizes.
constexpr int max_runs = int(all_cp_strategies.size() * all_cp_exchanges.size());
static_assert(std::is_trivially_copyable_v<CpRankTime>);
struct RankReport {
  GpuTiming whole;
  FlashKernel kernel = FlashKernel::wgmma_sm90;
  char gpu[256] = {};
  char nccl[32] = {};
  CpRankTime runs[max_runs];
};
static_assert(std::is_trivially_copyable_v<RankReport>);

// One rank of the run: what it holds and its communicators.
struct Rank {
  const CpWholeRun& whole;
  FlashKernel kernel;
  NcclComm& comm;       // the barrier's and the all-gather's
  NcclComm& ring_comm;  // the ring's transfers: `comm`, or its own with fewer channels
  int rank, ranks, warmup, reps;
  std::size_t kv_row;  // bytes of one token's K (or V), all KV heads
  CpTransferSettings settings;
};

// K and V of some tokens, in the order of a step's key buffer, in memory that `moved_by` sends
// or receives (registered with it where the run registers its buffers).
struct KeyValues {
  KeyValues(std::int64_t tokens, const Rank& r, const NcclComm& moved_by)
      : KeyValues(std::size_t(tokens) * r.kv_row, r.settings.registered_buffers ? &moved_by : nullptr) {}
  void poison() {
    k.poison();
    v.poison();
  }
  // The first `bytes` of K and of V from `from_k` and `from_v`, at the start of these buffers.
  void copy_in(const DeviceBuffer& from_k, const DeviceBuffer& from_v, std::size_t bytes) {
    if (bytes > k.bytes() || bytes > from_k.bytes() || bytes > from_v.bytes())
      throw std::logic_error("KeyValues::copy_in: more bytes than a buffer holds");
    if (bytes == 0) return;
    CUDA_CHECK(cudaMemcpy(k.data(), from_k.data(), bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(v.data(), from_v.data(), bytes, cudaMemcpyDeviceToDevice));
  }
  NcclBuffer k, v;

 private:
  KeyValues(std::size_t bytes, const NcclComm* registered_with)
      : k(bytes, registered_with), v(bytes, registered_with) {}
};

// Where a step reads its keys.
struct KeyPointers {
  const void* k;
  const void* v;
};

KeyPointers pointers(const KeyValues& kv) { return {kv.k.data(), kv.v.data()}; }

// Tokens of every rank's shard.
std::vector<std::int64_t> shard_tokens(const std::vector<std::vector<CpPiece>>& shards) {
  std::vector<std::int64_t> tokens;
  for (const auto& shard : shards) tokens.push_back(tokens_of(shard));
  return tokens;
}

// What a rank holds before it exchanges anything, gathered from the canonical tensors: the Q of its
// pieces and their K/V (its own step's keys), its shard's K/V (what it sends, by `sent_by`), and its
// output sums.
struct HeldTensors {
  HeldTensors(const Rank& r, const CpPlan& plan, const std::vector<CpPiece>& shard, const NcclComm& sent_by)
      : held(gathered(r, plan.pieces[r.rank], plan.pieces[r.rank])),
        own_shard(tokens_of(shard), r, sent_by),
        sums(tokens_of(plan.pieces[r.rank]), r.whole.problem) {
    const CpStepTensors shard_keys = gathered(r, {}, shard);
    own_shard.copy_in(shard_keys.k, shard_keys.v, own_shard.k.bytes());
  }
  CpStepTensors held;  // q: the rank's queries; k, v: its own step's keys
  KeyValues own_shard;
  CpOutputSums sums;

 private:
  static CpStepTensors gathered(const Rank& r, const std::vector<CpPiece>& queries, const std::vector<CpPiece>& keys) {
    const CpPieceLayouts layouts = cp_piece_layouts(r.whole.varlen, queries, keys);
    return CpStepTensors(DeviceCpPieces(layouts, kernel_tile(r.kernel)), r.whole.canonical, r.whole.problem);
  }
};

// K then V of `bytes` each to or from `peer` by `comm` on `stream`, nothing where there are no
// bytes (the peer knows the same sizes and skips its side too). Inside a group.
void send_keys(NcclComm& comm, const KeyValues& from, std::size_t bytes, int peer, cudaStream_t stream) {
  if (bytes == 0) return;
  comm.send(from.k.data(), bytes, peer, stream);
  comm.send(from.v.data(), bytes, peer, stream);
}

void recv_keys(NcclComm& comm, KeyValues& into, std::size_t offset, std::size_t bytes, int peer, cudaStream_t stream) {
  if (bytes == 0) return;
  comm.recv(static_cast<char*>(into.k.data()) + offset, bytes, peer, stream);
  comm.recv(static_cast<char*>(into.v.data()) + offset, bytes, peer, stream);
}

// What a timed run records: per rep, the run, its steps' kernels, its transfers and the wait
// before each step (waits[step][rep]).
struct RunTimes {
  std::vector<double> wall, compute, transfer;
  std::vector<std::vector<double>> waits;
  void add_to(CpRankTime& out, std::int64_t bytes) const {
    CpTransferTime t;
    t.wall_us = timing_of(wall).median_us;
    t.compute_us = timing_of(compute).median_us;
    t.transfer_us = timing_of(transfer).median_us;
    std::vector<double> exposed;
    for (std::size_t i = 0; i < wall.size(); ++i) exposed.push_back(wall[i] > compute[i] ? wall[i] - compute[i] : 0);
    t.exposed_us = timing_of(exposed).median_us;
    t.bytes_received = bytes;
    t.steps = int(waits.size());
    for (std::size_t s = 0; s < std::min(waits.size(), t.step_wait_us.size()); ++s)
      t.step_wait_us[s] = timing_of(waits[s]).median_us;
    out.transfer = t;
  }
};

// Events of one run: start and end, a begin and end per compute step and per transfer, every
// one recorded in each run (a step with nothing to compute, back to back).
class RunEvents {
 public:
  RunEvents(int steps, int transfers) : steps_(steps), transfers_(transfers), events_(2 + 2 * (steps + transfers)) {}
  cudaEvent_t start() const { return events_[0]; }
  cudaEvent_t end() const { return events_[1]; }
  cudaEvent_t compute(int step, bool end) const { return events_[2 + 2 * step + int(end)]; }
  cudaEvent_t transfer(int index, bool end) const { return events_[2 + 2 * (steps_ + index) + int(end)]; }
  // After the run's end: its wall, its steps' and transfers' times summed, and each step's wait.
  void read(RunTimes& into) const {
    CUDA_CHECK(cudaEventSynchronize(end()));
    into.wall.push_back(events_.elapsed_us(0, 1));
    const auto summed = [&](int first, int count) {
      double us = 0;
      for (int i = first; i < first + count; ++i) us += events_.elapsed_us(2 + 2 * i, 3 + 2 * i);
      return us;
    };
    into.compute.push_back(summed(0, steps_));
    into.transfer.push_back(summed(steps_, transfers_));
    into.waits.resize(std::size_t(steps_));
    for (int s = 0; s < steps_; ++s)
      into.waits[std::size_t(s)].push_back(s == 0 ? events_.elapsed_us(0, 2)
                                                  : events_.elapsed_us(1 + 2 * s, 2 + 2 * s));
  }

 private:
  int steps_, transfers_;
  detail::CudaEvents events_;
};

// Each `reps` run after `warmup`, every rank starting at a barrier (the run before has ended);
// `run` enqueues one.
RunTimes timed_runs(const Rank& r, const RunEvents& events, const std::function<void()>& run) {
  RunTimes times;
  for (int i = 0; i < r.warmup + r.reps; ++i) {
    r.comm.barrier();
    run();
    if (i >= r.warmup)
      events.read(times);
    else
      CUDA_CHECK(cudaEventSynchronize(events.end()));
  }
  return times;
}

// The rank's compute alone: its steps on `buffers` (a step's K/V) with no transfer running,
// every rank starting at a barrier.
GpuTiming compute_alone(const Rank& r, const CpRankSteps& steps, HeldTensors& held,
                        const std::vector<KeyPointers>& buffers) {
  r.comm.barrier();
  return time_on_gpu(
      [&] {
        held.sums.clear();
        for (std::size_t s = 0; s < buffers.size(); ++s)
          if (steps.pieces[s])
            held.sums.add(r.kernel, *steps.pieces[s], held.held.q.data(), buffers[s].k, buffers[s].v);
      },
      r.warmup, r.reps);
}

// The timed runs, the check of the last one's output, then the compute alone.
CpRankTime timed_rank(const Rank& r, const CpPlan& plan, const CpRankSteps& steps, HeldTensors& held,
                      const RunEvents& events, std::int64_t bytes, const std::vector<KeyPointers>& buffers,
                      const std::function<void()>& run) {
  CpRankTime out = steps.counted();
  timed_runs(r, events, run).add_to(out, bytes);
  r.whole.check(held.sums, plan.pieces[r.rank], out);
  out.compute = compute_alone(r, steps, held, buffers);
  return out;
}

// The ring: N steps, N - 1 transfers, B receive buffers (settings.ring_buffers, at most N - 1).
// Transfer t (before step t, events index t - 1) sends rank r + 1 the K/V of holder (r - t + 1)
// and receives from rank r - 1 that of holder (r - t), into buffer t % B; it waits until step
// t - B, which read that buffer, is done.
CpRankTime ring(const Rank& r, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards) {
  const CpRankSteps steps(r.whole.varlen, plan, shards, CpExchange::ring, r.rank, r.kernel, r.whole.problem.heads);
  const std::vector<std::int64_t> tokens = shard_tokens(shards);
  const auto holder = [&](int t) { return ((r.rank - t) % r.ranks + r.ranks) % r.ranks; };
  std::int64_t largest = 0;
  for (int h = 0; h < r.ranks; ++h)
    if (h != r.rank) largest = std::max(largest, tokens[h]);
  HeldTensors held(r, plan, shards[r.rank], r.ring_comm);
  const int slot_count = std::max(1, std::min(r.settings.ring_buffers, r.ranks - 1));
  std::deque<KeyValues> slots;  // in place: registered memory does not move
  for (int b = 0; b < slot_count; ++b) slots.emplace_back(largest, r, r.ring_comm).poison();
  const auto slot = [&](int t) -> KeyValues& { return slots[std::size_t(t % slot_count)]; };
  std::vector<KeyPointers> buffers{{held.held.k.data(), held.held.v.data()}};
  for (int s = 1; s < r.ranks; ++s) buffers.push_back(pointers(slot(s)));
  std::int64_t bytes = 0;
  for (int t = 1; t < r.ranks; ++t) bytes += 2 * tokens[holder(t)] * std::int64_t(r.kv_row);

  const detail::NonBlockingStream compute, transfer;
  const RunEvents events(r.ranks, r.ranks - 1);
  const int next = (r.rank + 1) % r.ranks, previous = (r.rank + r.ranks - 1) % r.ranks;
  const auto run = [&] {
    CUDA_CHECK(cudaEventRecord(events.start(), compute));
    CUDA_CHECK(cudaStreamWaitEvent(transfer, events.start()));
    for (int s = 0; s < r.ranks; ++s) {
      const int t = s + 1;  // the transfer that runs beside step s
      if (t < r.ranks) {
        if (t > slot_count) CUDA_CHECK(cudaStreamWaitEvent(transfer, events.compute(t - slot_count, true)));
        const KeyValues& from = t == 1 ? held.own_shard : slot(t - 1);
        CUDA_CHECK(cudaEventRecord(events.transfer(t - 1, false), transfer));
        r.ring_comm.grouped([&] {
          send_keys(r.ring_comm, from, std::size_t(tokens[holder(t - 1)]) * r.kv_row, next, transfer);
          recv_keys(r.ring_comm, slot(t), 0, std::size_t(tokens[holder(t)]) * r.kv_row, previous, transfer);
        });
        CUDA_CHECK(cudaEventRecord(events.transfer(t - 1, true), transfer));
      }
      if (s > 0) CUDA_CHECK(cudaStreamWaitEvent(compute, events.transfer(s - 1, true)));
      CUDA_CHECK(cudaEventRecord(events.compute(s, false), compute));
      if (s == 0) held.sums.clear(compute);
      if (steps.pieces[s])
        held.sums.add(r.kernel, *steps.pieces[s], held.held.q.data(), buffers[s].k, buffers[s].v, compute,
                      t < r.ranks ? r.settings.sm_margin : 0);
      CUDA_CHECK(cudaEventRecord(events.compute(s, true), compute));
    }
    CUDA_CHECK(cudaEventRecord(events.end(), compute));
  };
  return timed_rank(r, plan, steps, held, events, bytes, buffers, run);
}

// The all-gather: every other rank's shard received straight into the one step's key buffer
// (the rank's own pieces, then each holder's shard in schedule order), then the step.
CpRankTime all_gather(const Rank& r, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards) {
  const CpRankSteps steps(r.whole.varlen, plan, shards, CpExchange::all_gather, r.rank, r.kernel,
                          r.whole.problem.heads);
  const std::vector<std::int64_t> tokens = shard_tokens(shards);
  const std::vector<int>& holders = steps.schedule.front();
  HeldTensors held(r, plan, shards[r.rank], r.comm);
  KeyValues keys(steps.layouts.front()->key_tokens, r, r.comm);
  keys.poison();
  const std::size_t own_bytes = held.held.k.bytes();
  keys.copy_in(held.held.k, held.held.v, own_bytes);
  std::vector<std::size_t> offset;  // bytes into the key buffer of each holder's K/V
  std::size_t at = own_bytes;
  std::int64_t bytes = 0;
  for (int h : holders) {
    offset.push_back(h == r.rank ? 0 : at);
    if (h != r.rank) {
      at += std::size_t(tokens[h]) * r.kv_row;
      bytes += 2 * tokens[h] * std::int64_t(r.kv_row);
    }
  }

  const detail::NonBlockingStream compute, transfer;
  const RunEvents events(1, 1);
  const auto run = [&] {
    CUDA_CHECK(cudaEventRecord(events.start(), compute));
    CUDA_CHECK(cudaStreamWaitEvent(transfer, events.start()));
    CUDA_CHECK(cudaEventRecord(events.transfer(0, false), transfer));
    r.comm.grouped([&] {
      const std::size_t out_bytes = std::size_t(tokens[r.rank]) * r.kv_row;
      for (std::size_t i = 0; i < holders.size(); ++i) {
        const int h = holders[i];
        if (h == r.rank) continue;
        send_keys(r.comm, held.own_shard, out_bytes, h, transfer);
        recv_keys(r.comm, keys, offset[i], std::size_t(tokens[h]) * r.kv_row, h, transfer);
      }
    });
    CUDA_CHECK(cudaEventRecord(events.transfer(0, true), transfer));
    CUDA_CHECK(cudaStreamWaitEvent(compute, events.transfer(0, true)));
    CUDA_CHECK(cudaEventRecord(events.compute(0, false), compute));
    held.sums.clear(compute);
    if (steps.pieces[0])
      held.sums.add(r.kernel, *steps.pieces[0], held.held.q.data(), keys.k.data(), keys.v.data(), compute);
    CUDA_CHECK(cudaEventRecord(events.compute(0, true), compute));
    CUDA_CHECK(cudaEventRecord(events.end(), compute));
  };
  return timed_rank(r, plan, steps, held, events, bytes, {pointers(keys)}, run);
}

void run_rank(RankContext& context, const Scenario& scenario, const std::vector<CpPlan>& plans,
              std::string_view kernel_name, int warmup, int reps, std::uint64_t seed, CpTransferSettings settings) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices < context.ranks())
    throw NoGpuError(std::to_string(context.ranks()) + " ranks need as many GPUs, one process each; this machine has " +
                     std::to_string(devices));
  CUDA_CHECK(cudaSetDevice(context.rank()));
  const GpuInfo gpu = query_gpu();
  RankReport& report = *static_cast<RankReport*>(context.result());
  report.kernel = choose_flash_kernel(kernel_name, gpu.compute_capability);
  std::snprintf(report.gpu, sizeof report.gpu, "%s", gpu.name.c_str());
  std::snprintf(report.nccl, sizeof report.nccl, "%s", NcclComm::version().c_str());
  NcclId id;
  if (context.rank() == 0) id = NcclComm::make_id();
  context.share_from_rank0(&id, sizeof id);
  NcclComm comm(id, context.ranks(), context.rank());
  std::optional<NcclComm> capped;
  if (settings.transfer_channels > 0) capped.emplace(comm, settings.transfer_channels);

  const CpWholeRun whole(scenario, report.kernel, warmup, reps, seed);
  report.whole = whole.time;
  const AttentionProblem& p = whole.problem;
  const std::size_t kv_row = std::size_t(p.kv_heads) * p.head_dim * dtype_bytes(p.dtype);
  const Rank r{whole, report.kernel, comm,    capped ? *capped : comm, context.rank(), context.ranks(), warmup,
               reps,  kv_row,        settings};
  int i = 0;
  for (const CpPlan& plan : plans) {
    const std::vector<std::vector<CpPiece>> shards = cp_shards(plan);
    report.runs[i++] = ring(r, plan, shards);
    report.runs[i++] = all_gather(r, plan, shards);
  }
}

}  // namespace

CpTimes time_context_parallel_over_nccl(const Scenario& scenario, const std::vector<CpPlan>& plans,
                                        std::string_view kernel_name, int warmup, int reps, std::uint64_t seed,
                                        CpTransferSettings settings) {
  if (plans.empty() || int(plans.size()) > int(all_cp_strategies.size()))
    throw std::invalid_argument("time_context_parallel_over_nccl: one to three plans");
  const int ranks = plans.front().ranks();
  for (const CpPlan& plan : plans)
    if (plan.ranks() != ranks) throw std::invalid_argument("time_context_parallel_over_nccl: plans of different N");
  const std::vector<std::byte> results = run_rank_processes(ranks, sizeof(RankReport), [&](RankContext& context) {
    run_rank(context, scenario, plans, kernel_name, warmup, reps, seed, settings);
  });
  std::vector<RankReport> reports(ranks);
  std::memcpy(reports.data(), results.data(), results.size());
  CpTimes times;
  times.whole = reports[0].whole;
  times.kernel = reports[0].kernel;
  times.gpus = ranks;
  times.gpu = reports[0].gpu;
  times.nccl_version = reports[0].nccl;
  times.settings = settings;
  int i = 0;
  for (const CpPlan& plan : plans)
    for (CpExchange exchange : all_cp_exchanges) {
      CpExchangeTimes e{plan.strategy, exchange, {}};
      for (const RankReport& report : reports) e.ranks.push_back(report.runs[i]);
      times.exchanges.push_back(std::move(e));
      ++i;
    }
  return times;
}

#else

CpTimes time_context_parallel_over_nccl(const Scenario&, const std::vector<CpPlan>&, std::string_view, int, int,
                                        std::uint64_t, CpTransferSettings) {
  throw NoGpuError("this build has no CUDA support");
}

#endif

}  // namespace attnlab
