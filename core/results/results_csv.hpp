#pragma once
// The results CSV every run writes and every reader loads (schema: results/README.md). One row per
// (scenario, implementation, dtype, head dim, pass) of a real run, ours or a
// peer's. A value that was not measured is an empty optional and an empty cell,
// never a made-up number. Rows of a measured training step (pass = step, written by
// python -m attnlab.step) are read into a type of their own, apart from the attention runs.
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/results/pass.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

struct ResultRow {
  // The fixed columns, in file order.
  std::string scenario;
  std::string implementation;  // naive, padded, packed, varlen, or a peer's name for its kernel
  std::string source;          // "attnlab" for our rows, the peer's name otherwise
  std::string gpu;             // as the driver reports it
  DType dtype = DType::bf16;
  int heads = 0;
  int head_dim = 0;
  bool causal = true;
  Pass pass = Pass::fwd;
  std::optional<double> median_us, min_us, max_us;
  std::optional<double> useful_tflops;
  std::optional<std::int64_t> scores_computed, scores_useful;  // per run, all heads
  std::optional<double> rel_l2_error;
  // The extra columns.
  std::optional<int> kv_heads;
  std::optional<std::int64_t> tokens;
  std::string kernel;  // the code that ran: "cublas", "mma-sm80"; a peer's backend or empty
  std::string tile;    // "BrxBc", e.g. "64x64"; empty where it does not apply
  std::optional<double> computed_tflops;
  std::optional<double> max_abs_error;
  std::optional<double> bleed_rel_l2;
  std::optional<std::int64_t> hbm_bytes_model, hbm_bytes_measured, extra_memory_bytes;
  std::optional<int> reps;
  std::string driver, cuda_version, commit, date;  // date: ISO 8601 UTC
  // A context-parallel run's rank (results/README.md, "Context parallelism"): all of ranks, cp_strategy,
  // cp_exchange, cp_rank, cp_gpus and cp_whole_us set, or none; its time columns are the rank's
  // compute, K/V in memory. Over NCCL (cp_gpus > 1) the run's columns too, on one GPU none.
  std::optional<int> ranks;  // 1 to max_cp_ranks
  std::string cp_strategy;   // contiguous, zigzag or documents (core/cost/context_parallel.hpp)
  // The mask's window the run computed, FlashAttention's window_size: -1 unbounded. Both set in
  // every row attnlab writes; both empty in a file from before the columns (then no run of it
  // stands for a scenario's cells: analysis/same_cells.hpp).
  std::optional<int> window_left, window_right;
  std::string cp_exchange;            // ring or all-gather
  std::optional<int> cp_rank;         // 0 to ranks - 1
  std::optional<int> cp_gpus;         // 1: the ranks one after another; ranks: one GPU each
  std::optional<double> cp_whole_us;  // the whole varlen forward, same inputs, same run
  std::optional<double> cp_run_us, cp_transfer_us, cp_exposed_us;  // over NCCL (run/cp_timing.hpp)
  std::optional<std::int64_t> cp_kv_bytes_received;                // over NCCL, per run
  std::optional<int> cp_sm_margin;           // over NCCL: SMs each ring step left to its transfer; empty: none
  std::optional<int> cp_transfer_channels;   // over NCCL: the ring's NCCL channels, capped; empty: NCCL's
  std::optional<int> cp_registered_buffers;  // over NCCL: 1, K/V buffers registered with NCCL; empty: not
  std::optional<int> cp_ring_buffers;        // over NCCL: the ring's receive buffers; empty: 2

  bool operator==(const ResultRow&) const = default;
};

// A context-parallel row's transfer settings; an empty cell is the default.
CpTransferSettings cp_transfer_settings(const ResultRow& row);
// A run's settings into a row over NCCL: registration on every row, the ring's own settings
// (margin, channels, ring buffers) on ring rows alone (by row.cp_exchange); a default stays empty.
void set_cp_transfer_settings(ResultRow& row, const CpTransferSettings& settings);

// The parts of a measured training step (train/README.md, "Results"): column step_<name>_us.
enum class StepPart { attention_fwd, attention_bwd, gemm, elementwise, loss, optimizer, communication, other };
inline constexpr StepPart all_step_parts[] = {StepPart::attention_fwd, StepPart::attention_bwd, StepPart::gemm,
                                              StepPart::elementwise,   StepPart::loss,          StepPart::optimizer,
                                              StepPart::communication, StepPart::other};
const char* step_part_name(StepPart p);  // "attention_fwd", "gemm", ...

// The optimizer a step ran (attnlab/step/optimizer.py): AdamW on every parameter, or nanochat's Muon
// on the blocks' matrices with AdamW on the embedding and the LM head.
enum class StepOptimizer { adamw, muon };
inline constexpr StepOptimizer all_step_optimizers[] = {StepOptimizer::adamw, StepOptimizer::muon};
const char* step_optimizer_name(StepOptimizer o);  // "adamw", "muon"

// How several GPUs averaged the gradients (attnlab/step/command.py, --gradient-sync): in one all-reduce
// pass once the backward is done, or as PyTorch's DDP does, each bucket all-reduced as soon as the
// backward has produced it, beside the backward of the layers before it.
enum class GradientSync { after_backward, during_backward, sharded };
inline constexpr GradientSync all_gradient_syncs[] = {GradientSync::after_backward, GradientSync::during_backward,
                                                      GradientSync::sharded};
const char* gradient_sync_name(GradientSync g);  // "after_backward", "during_backward", "sharded"

// The data-parallel GPUs a step row may name.
inline constexpr int max_step_gpus = 1024;

// One measured training step (pass = step): a PyTorch step of a scenario's [model], one row
// per (scenario, layout, attention backend, GPUs). A type of its own, so that no table,
// ratio or view of attention runs can take a whole step for a kernel's time.
struct StepRow {
  std::string scenario;
  std::string implementation;  // the layout: packed or varlen
  std::string source;          // torch-step-fa2, torch-step-cudnn, torch-step-attnlab
  std::string gpu;
  DType dtype = DType::bf16;
  int heads = 0;
  int head_dim = 0;
  bool causal = true;
  double median_us = 0;  // one whole step on rank 0
  std::optional<double> min_us, max_us;
  std::optional<int> kv_heads;
  std::optional<std::int64_t> tokens;  // the micro-batch's tokens per GPU
  std::string kernel;                  // attnlab's attention kernel in torch-step-attnlab rows, else empty
  std::optional<int> reps;
  int gpus = 1;  // data-parallel ranks
  // Several GPUs: how they averaged the gradients (an empty cell: after_backward, as every step
  // ran before the column); one GPU: empty, no all-reduce.
  std::optional<GradientSync> gradient_sync;
  StepOptimizer optimizer = StepOptimizer::adamw;                      // an empty cell: AdamW, step.py's default
  std::optional<double> loss;                                          // nats: a sanity check, not a metric
  std::array<std::optional<double>, std::size(all_step_parts)> parts;  // [StepPart] µs per step; empty: not profiled
  std::optional<double> kernels_us;                                    // the parts' sum: the GPU's busy time
  std::optional<double> communication_exposed_us;                      // communication no other kernel ran beside
  std::string driver, cuda_version, commit, date;

  std::optional<double> part_us(StepPart p) const { return parts[int(p)]; }
  bool operator==(const StepRow&) const = default;
};

// Every column, fixed ones first, in the order write_results_csv prints them.
const std::vector<std::string_view>& results_columns();
// The first 16: any results file must have them (in any order).
const std::vector<std::string_view>& required_results_columns();
// The columns only a step row fills (gpus, gradient_sync, optimizer, loss, step_<part>_us,
// step_kernels_us, step_communication_exposed_us): read, never written.
const std::vector<std::string_view>& step_results_columns();

// One cell of a CSV line: quoted (quotes inside doubled) when it holds a comma, a
// quote or edge spaces (readers trim spaces). Throws InputError naming `column` when
// the text holds a line break. Every CSV attnlab writes quotes its text through this.
std::string csv_cell(const std::string& text, std::string_view column);

// A whole cell as a number: all of its text, and finite (from_chars takes "nan" and "inf");
// empty otherwise. The readers of measured rows check each column's range on it.
template <class Number>
std::optional<Number> parse_cell_number(std::string_view text) {
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<Number>)
    if (!std::isfinite(value)) return std::nullopt;
  return value;
}

// A text cell as the readers of results and GEMM files keep it: printable (no control
// character, UTF-8: it is printed as read) and at most max_text_cell_bytes long.
bool is_text_cell(std::string_view text);
std::string text_cell_expected();  // "printable text of at most 256 bytes (...)", for errors

// Writes the header and rows to path atomically (a temp file beside it, then a
// rename), creating the parent folder. Doubles print in their shortest
// round-trip form. Throws InputError when the file cannot be written.
void write_results_csv(const std::filesystem::path& path, const std::vector<ResultRow>& rows);

// Which attention runs a reader keeps (every row is checked either way); empty keeps all.
using ResultFilter = std::function<bool(const ResultRow&)>;

struct ResultsRows {
  std::vector<ResultRow> runs;  // pass fwd or bwd, those `keep` accepts, no context-parallel rank
  std::vector<StepRow> steps;   // pass step, all of them
  std::vector<ResultRow> cp;    // a context-parallel run's ranks, all of them: no table of runs takes one
};

// Reads a results file; columns in any order, unknown columns ignored, missing
// extra columns read as empty, a UTF-8 byte-order mark (as a spreadsheet saves
// one) skipped (core/io/csv_text.hpp). Rows are checked one at a time and only those
// kept are held, at most max_results_rows (core/io/input_limits.hpp), so memory
// follows what is kept, not the file. A step row must hold median_us, gpus (1 to
// max_step_gpus) and a layout (packed or varlen); its optimizer is adamw or muon (empty: adamw); its
// gradient_sync after_backward, during_backward or sharded on several GPUs (empty: after_backward), empty on
// one; its parts are finite and >= 0, its loss finite; a fwd or bwd row leaves the step columns empty. A context-parallel
// row (a forward) fills ranks, cp_strategy, cp_exchange, cp_rank (below ranks), cp_gpus (1 or ranks) and cp_whole_us,
// and the run's four columns exactly when cp_gpus > 1; every other row none (a step row never). A row fills both
// window_left and window_right (-1 to max_window) or neither. Throws InputError naming
// the file, and the line and column where it applies, e.g.
//   results/h100/x.csv:7: median_us: expected a number, got "abc"
ResultsRows read_results_rows(const std::filesystem::path& path, const ResultFilter& keep = {});
// The attention runs of a results file alone (read_results_rows(path, keep).runs).
std::vector<ResultRow> read_results_csv(const std::filesystem::path& path, const ResultFilter& keep = {});

}  // namespace attnlab
