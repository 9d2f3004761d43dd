#include "run/cp_over_nccl.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/io/input_error.hpp"

#ifdef ATTNLAB_HAS_CUDA
#include <cuda_runtime.h>

#include <memory>

#include "kernels/common/cuda_check.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/cp_forward.hpp"
#include "run/cp_rank_steps.hpp"
#include "run/cuda_events.hpp"
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

// A stream that is destroyed however the run ends; it does not wait for the legacy default stream.
class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// K and V of some tokens, in the order of a step's key buffer.
struct KeyValues {
  KeyValues(std::int64_t tokens, std::size_t row_bytes) : k(std::size_t(tokens) * row_bytes), v(k.bytes()) {}
  KeyValues(DeviceBuffer k_, DeviceBuffer v_) : k(std::move(k_)), v(std::move(v_)) {}
  DeviceBuffer k, v;
};

// One rank of the run: what it holds and its communicator.
struct Rank {
  const CpWholeRun& whole;
  FlashKernel kernel;
  NcclComm& comm;
  int rank, ranks, warmup, reps;
  std::size_t kv_row;  // bytes of one token's K (or V), all KV heads
  CpTransferSettings settings;
};

// Tokens of every rank's shard.
std::vector<std::int64_t> shard_tokens(const std::vector<std::vector<CpPiece>>& shards) {
  std::vector<std::int64_t> tokens;
  for (const auto& shard : shards) tokens.push_back(tokens_of(shard));
  return tokens;
}

// The rank's K/V of `pieces` (its own), gathered from the canonical tensors, in the pieces' order.
KeyValues held_keys(const Rank& r, const std::vector<CpPiece>& pieces) {
  const CpPieceLayouts layouts = cp_piece_layouts(r.whole.varlen, {}, pieces);
  const DeviceCpPieces on_device(layouts, kernel_tile(r.kernel));
  CpStepTensors t(on_device, r.whole.canonical, r.whole.problem);
  return {std::move(t.k), std::move(t.v)};
}

// What a timed run records: per rep, the step and transfer events read back.
struct RunTimes {
  std::vector<double> wall, compute, transfer;
  void add_to(CpRankTime& out, std::int64_t bytes) const {
    CpTransferTime t;
    t.wall_us = timing_of(wall).median_us;
    t.compute_us = timing_of(compute).median_us;
    t.transfer_us = timing_of(transfer).median_us;
    std::vector<double> exposed;
    for (std::size_t i = 0; i < wall.size(); ++i) exposed.push_back(wall[i] > compute[i] ? wall[i] - compute[i] : 0);
    t.exposed_us = timing_of(exposed).median_us;
    t.bytes_received = bytes;
    out.transfer = t;
  }
};

// Events of one run: start and end, a begin and end per compute step and per transfer.
class RunEvents {
 public:
  explicit RunEvents(int steps) : steps_(steps), events_(2 + 4 * steps) {}
  cudaEvent_t start() const { return events_[0]; }
  cudaEvent_t end() const { return events_[1]; }
  cudaEvent_t compute(int step, bool end) const { return events_[2 + 2 * step + int(end)]; }
  cudaEvent_t transfer(int step, bool end) const { return events_[2 + 2 * steps_ + 2 * step + int(end)]; }
  // After the run's end: its wall, compute and transfer time, the steps given.
  void read(RunTimes& into, const std::vector<int>& computed, const std::vector<int>& transferred) const {
    CUDA_CHECK(cudaEventSynchronize(end()));
    into.wall.push_back(events_.elapsed_us(0, 1));
    double compute = 0, transfer = 0;
    for (int s : computed) compute += events_.elapsed_us(2 + 2 * s, 3 + 2 * s);
    for (int s : transferred) transfer += events_.elapsed_us(2 + 2 * steps_ + 2 * s, 3 + 2 * steps_ + 2 * s);
    into.compute.push_back(compute);
    into.transfer.push_back(transfer);
  }

 private:
  int steps_;
  detail::CudaEvents events_;
};

// Each `reps` run after `warmup`, every rank starting at a barrier; `run(events)` enqueues one.
RunTimes timed_runs(const Rank& r, cudaStream_t stream, const RunEvents& events, const std::vector<int>& computed,
                    const std::vector<int>& transferred, const std::function<void()>& run) {
  RunTimes times;
  for (int i = 0; i < r.warmup + r.reps; ++i) {
    r.comm.barrier(stream);
    run();
    if (i >= r.warmup)
      events.read(times, computed, transferred);
    else
      CUDA_CHECK(cudaEventSynchronize(events.end()));
  }
  return times;
}

// The rank's compute alone: its steps on `buffers` (a step's K/V, null where it has none)
// with no transfer running, every rank starting at a barrier.
GpuTiming compute_alone(const Rank& r, const CpRankSteps& steps, CpOutputSums& sums, const DeviceBuffer& q,
                        const std::vector<const KeyValues*>& buffers) {
  r.comm.barrier(nullptr);
  return time_on_gpu(
      [&] {
        sums.clear();
        for (std::size_t s = 0; s < buffers.size(); ++s)
          if (steps.pieces[s])
            sums.add(r.kernel, *steps.pieces[s], q.data(), buffers[s]->k.data(), buffers[s]->v.data());
      },
      r.warmup, r.reps);
}

void check_output(const Rank& r, const CpPlan& plan, const CpOutputSums& sums, CpRankTime& out) {
  const std::vector<CpPiece>& queries = plan.pieces[r.rank];
  const CpForwardError error = compare_cp_partials(cp_partial_of(sums, queries), r.whole.at(queries));
  out.rel_l2 = error.rel_l2;
  out.lse_max_abs = error.lse_max_abs;
}

// The ring: N steps, N - 1 transfers. Transfer t (before step t) sends rank r + 1 the K/V of
// holder (r - t + 1) and receives from rank r - 1 that of holder (r - t), into buffer t % 2;
// it waits until step t - 2, which read that buffer, is done.
CpRankTime ring(const Rank& r, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards) {
  const CpRankSteps steps(r.whole.varlen, plan, shards, CpExchange::ring, r.rank, r.kernel, r.whole.problem.heads);
  const std::vector<std::int64_t> tokens = shard_tokens(shards);
  const auto holder = [&](int t) { return ((r.rank - t) % r.ranks + r.ranks) % r.ranks; };
  std::int64_t largest = 0;
  for (int h = 0; h < r.ranks; ++h)
    if (h != r.rank) largest = std::max(largest, tokens[h]);
  const KeyValues own = held_keys(r, plan.pieces[r.rank]), own_shard = held_keys(r, shards[r.rank]);
  KeyValues slots[2] = {{largest, r.kv_row}, {largest, r.kv_row}};
  for (KeyValues& s : slots) {
    s.k.poison();
    s.v.poison();
  }
  const CpPieceLayouts query_layout = cp_piece_layouts(r.whole.varlen, plan.pieces[r.rank], {});
  const DeviceCpPieces query_pieces(query_layout, kernel_tile(r.kernel));
  const CpStepTensors query(query_pieces, r.whole.canonical, r.whole.problem);
  CpOutputSums sums(tokens_of(plan.pieces[r.rank]), r.whole.problem);

  std::vector<const KeyValues*> buffers{&own};
  for (int s = 1; s < r.ranks; ++s) buffers.push_back(&slots[s % 2]);
  std::vector<int> computed, transferred;  // every step's events are recorded, a skipped one's back to back
  for (int s = 0; s < r.ranks; ++s) {
    computed.push_back(s);
    if (s > 0) transferred.push_back(s);
  }
  std::int64_t bytes = 0;
  for (int t = 1; t < r.ranks; ++t) bytes += 2 * tokens[holder(t)] * std::int64_t(r.kv_row);

  const Stream compute, transfer;
  const RunEvents events(r.ranks);
  const auto run = [&] {
    CUDA_CHECK(cudaEventRecord(events.start(), compute));
    CUDA_CHECK(cudaStreamWaitEvent(transfer, events.start()));
    for (int s = 0; s < r.ranks; ++s) {
      const int t = s + 1;  // the transfer that runs beside step s
      if (t < r.ranks) {
        if (t >= 3) CUDA_CHECK(cudaStreamWaitEvent(transfer, events.compute(t - 2, true)));
        const KeyValues& from = t == 1 ? own_shard : slots[(t - 1) % 2];
        const std::size_t out_bytes = std::size_t(tokens[holder(t - 1)]) * r.kv_row;
        const std::size_t in_bytes = std::size_t(tokens[holder(t)]) * r.kv_row;
        CUDA_CHECK(cudaEventRecord(events.transfer(t, false), transfer));
        r.comm.grouped([&] {
          const int next = (r.rank + 1) % r.ranks, previous = (r.rank + r.ranks - 1) % r.ranks;
          if (out_bytes) {
            r.comm.send(from.k.data(), out_bytes, next, transfer);
            r.comm.send(from.v.data(), out_bytes, next, transfer);
          }
          if (in_bytes) {
            r.comm.recv(slots[t % 2].k.data(), in_bytes, previous, transfer);
            r.comm.recv(slots[t % 2].v.data(), in_bytes, previous, transfer);
          }
        });
        CUDA_CHECK(cudaEventRecord(events.transfer(t, true), transfer));
      }
      if (s > 0) CUDA_CHECK(cudaStreamWaitEvent(compute, events.transfer(s, true)));
      CUDA_CHECK(cudaEventRecord(events.compute(s, false), compute));
      if (s == 0) sums.clear(compute);
      if (steps.pieces[s])
        sums.add(r.kernel, *steps.pieces[s], query.q.data(), buffers[s]->k.data(), buffers[s]->v.data(), compute,
                 t < r.ranks ? r.settings.sm_margin : 0);
      CUDA_CHECK(cudaEventRecord(events.compute(s, true), compute));
    }
    CUDA_CHECK(cudaEventRecord(events.end(), compute));
  };
  CpRankTime out;
  out.steps = steps.steps;
  out.launches = steps.launches;
  out.scores_computed = steps.scores_computed;
  timed_runs(r, compute, events, computed, transferred, run).add_to(out, bytes);
  check_output(r, plan, sums, out);
  out.compute = compute_alone(r, steps, sums, query.q, buffers);
  return out;
}

// The all-gather: every other rank's shard received straight into the one step's key buffer
// (the rank's own pieces, then each holder's shard in schedule order), then the step.
CpRankTime all_gather(const Rank& r, const CpPlan& plan, const std::vector<std::vector<CpPiece>>& shards) {
  const CpRankSteps steps(r.whole.varlen, plan, shards, CpExchange::all_gather, r.rank, r.kernel,
                          r.whole.problem.heads);
  const std::vector<std::int64_t> tokens = shard_tokens(shards);
  const std::vector<int>& holders = steps.schedule.front();
  const KeyValues own = held_keys(r, plan.pieces[r.rank]), own_shard = held_keys(r, shards[r.rank]);
  KeyValues keys(steps.layouts.front()->key_tokens, r.kv_row);
  keys.k.poison();
  keys.v.poison();
  if (own.k.bytes()) {
    CUDA_CHECK(cudaMemcpy(keys.k.data(), own.k.data(), own.k.bytes(), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(keys.v.data(), own.v.data(), own.v.bytes(), cudaMemcpyDeviceToDevice));
  }
  std::vector<std::size_t> offset;  // bytes into the key buffer of each holder's K/V
  std::size_t at = own.k.bytes();
  std::int64_t bytes = 0;
  for (int h : holders) {
    offset.push_back(h == r.rank ? 0 : at);
    if (h != r.rank) {
      at += std::size_t(tokens[h]) * r.kv_row;
      bytes += 2 * tokens[h] * std::int64_t(r.kv_row);
    }
  }
  const CpPieceLayouts query_layout = cp_piece_layouts(r.whole.varlen, plan.pieces[r.rank], {});
  const DeviceCpPieces query_pieces(query_layout, kernel_tile(r.kernel));
  const CpStepTensors query(query_pieces, r.whole.canonical, r.whole.problem);
  CpOutputSums sums(tokens_of(plan.pieces[r.rank]), r.whole.problem);

  const Stream compute, transfer;
  const RunEvents events(1);
  const auto run = [&] {
    CUDA_CHECK(cudaEventRecord(events.start(), compute));
    CUDA_CHECK(cudaStreamWaitEvent(transfer, events.start()));
    CUDA_CHECK(cudaEventRecord(events.transfer(0, false), transfer));
    r.comm.grouped([&] {
      const std::size_t out_bytes = std::size_t(tokens[r.rank]) * r.kv_row;
      for (std::size_t i = 0; i < holders.size(); ++i) {
        const int h = holders[i];
        if (h == r.rank) continue;
        if (out_bytes) {
          r.comm.send(own_shard.k.data(), out_bytes, h, transfer);
          r.comm.send(own_shard.v.data(), out_bytes, h, transfer);
        }
        const std::size_t in_bytes = std::size_t(tokens[h]) * r.kv_row;
        if (in_bytes) {
          r.comm.recv(static_cast<char*>(keys.k.data()) + offset[i], in_bytes, h, transfer);
          r.comm.recv(static_cast<char*>(keys.v.data()) + offset[i], in_bytes, h, transfer);
        }
      }
    });
    CUDA_CHECK(cudaEventRecord(events.transfer(0, true), transfer));
    CUDA_CHECK(cudaStreamWaitEvent(compute, events.transfer(0, true)));
    CUDA_CHECK(cudaEventRecord(events.compute(0, false), compute));
    sums.clear(compute);
    if (steps.pieces[0]) sums.add(r.kernel, *steps.pieces[0], query.q.data(), keys.k.data(), keys.v.data(), compute);
    CUDA_CHECK(cudaEventRecord(events.compute(0, true), compute));
    CUDA_CHECK(cudaEventRecord(events.end(), compute));
  };
  CpRankTime out;
  out.steps = steps.steps;
  out.launches = steps.launches;
  out.scores_computed = steps.scores_computed;
  timed_runs(r, compute, events, {0}, {0}, run).add_to(out, bytes);
  check_output(r, plan, sums, out);
  out.compute = compute_alone(r, steps, sums, query.q, {&keys});
  return out;
}

void run_rank(RankContext& context, const Scenario& scenario, const std::vector<CpPlan>& plans,
              std::string_view kernel_name, int warmup, int reps, std::uint64_t seed, CpTransferSettings settings) {
  // NCCL reads its settings from the environment when the first communicator starts.
  if (settings.transfer_channels > 0)
    ::setenv("NCCL_MAX_P2P_NCHANNELS", std::to_string(settings.transfer_channels).c_str(), 1);
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

  const CpWholeRun whole(scenario, report.kernel, warmup, reps, seed);
  report.whole = whole.time;
  const AttentionProblem& p = whole.problem;
  const std::size_t kv_row = std::size_t(p.kv_heads) * p.head_dim * dtype_bytes(p.dtype);
  const Rank r{whole, report.kernel, comm, context.rank(), context.ranks(), warmup, reps, kv_row, settings};
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
