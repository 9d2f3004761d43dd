#pragma once
// Measured attention times for the training step: for one layer of a model over
// a scenario's batch, the shipped run that computed the same cells, scaled to
// the layer's heads. Nothing here is estimated: a layer no run matches has no time.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/measured_gemms.hpp"
#include "analysis/same_cells.hpp"
#include "core/cost/step_bytes.hpp"
#include "core/cost/training_step.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

// Whose kernel ran: ours, or FlashAttention-2 as PyTorch runs it (its sources in
// results/peer_families.csv: varlen_attn, and SDPA's flash backend on the padded and packed batches).
enum class KernelFamily { attnlab, flash_attention_2 };
inline constexpr KernelFamily all_kernel_families[] = {KernelFamily::attnlab, KernelFamily::flash_attention_2};
const char* kernel_family_name(KernelFamily f);  // "attnlab", "FA2"
// The family's backend in the measured step's rows: "torch-step-attnlab", "torch-step-fa2".
const char* measured_step_source(KernelFamily f);
// Ours: a flash row of `kernel` (a row without a kernel column is the teaching kernel's,
// mma-sm80); FA2: any row of its sources.
bool ran_in_family(const ResultRow& row, KernelFamily f, std::string_view kernel);

// What a layer's attention is matched against: results rows, by the cells they computed
// (analysis/same_cells.hpp: the scenarios the rows name are looked up as a row needs them,
// never every scenario of the folder).
struct MeasuredRuns {
  std::vector<ResultRow> rows;
  RunCells cells;
};

// The kernel of ours the step takes unless told otherwise: that of our first flash row in
// `runs.rows` (files in results order: attnlab-bench.csv, the fastest kernel the GPU ran, first),
// so one kernel's packed time is set against the same kernel's varlen time. Empty without one.
std::string default_step_kernel(const MeasuredRuns& runs);

struct MeasuredAttention {
  double us = 0;           // the run's median time x the layer's heads / the run's heads
  double measured_us = 0;  // the run's median time as measured
  int measured_heads = 0;
  std::string scenario;  // the run: its scenario and implementation (same cells as the layer's)
  Implementation implementation = Implementation::varlen;
  std::string source;
  std::string kernel;  // the row's kernel column (ours), e.g. "wgmma-sm90"
};

// The first row (in `runs.rows` order; a run of `impl` itself before others) timed by `family` in `pass` whose run
// computed the cells `layer` computes under `impl` (a flash implementation; analysis/same_cells.hpp).
// `kernel`: ours of this kernel only (ignored for FA2).
std::optional<MeasuredAttention> find_measured_attention(const Scenario& layer, Implementation impl, Pass pass,
                                                         KernelFamily family, std::string_view kernel,
                                                         const MeasuredRuns& runs);

// One implementation's step over the scenario's batch: measured attention per layer
// kind and pass, and the matrix products priced at the GEMMs measured at the model's
// shapes, or else at a GEMM ceiling.
struct ImplementationStepTime {
  Implementation implementation = Implementation::varlen;
  std::array<std::array<std::optional<MeasuredAttention>, 2>, 2> layer;  // [LayerKind][Pass]
  std::optional<std::array<double, 2>> gemm_us;  // [Pass]: the batch's matrix products; empty without a price
  StepBytes rest_bytes;                          // the rest of the step: elementwise work, loss, optimizer
  std::optional<double> rest_us;                 // rest_bytes at the copy ceiling; empty without one

  // Sum over the layers of their measured times; empty when a kind that has layers has no time.
  std::optional<double> attention_us(Pass pass, const std::array<int, 2>& layers) const;
  std::optional<double> step_us(Pass pass,
                                const std::array<int, 2>& layers) const;  // gemm_us + attention_us, when both are known
};

struct StepTimePrediction {
  KernelFamily family = KernelFamily::attnlab;
  std::string kernel;                  // ours: the flash kernel whose runs it took; empty for FA2
  std::optional<double> gemm_tflops;   // the ceiling the GEMMs are priced at, if one was measured
  std::optional<MeasuredGemms> gemms;  // the GEMMs at the model's shapes: these price the products where present
  std::optional<double> copy_tbps;     // the copy ceiling the rest of the step is priced at, if one was measured
  std::array<int, 2> layers{};
  ImplementationStepTime packed, varlen;

  // 1 - varlen / packed over the forward pass only (its GEMMs and attention).
  std::optional<double> saving_fwd() const;
  // The same over the whole step (forward and backward): only where both passes were measured.
  std::optional<double> saving_step() const;
  // The same with the rest of the step at its bytes added to both layouts: only with a copy ceiling too.
  std::optional<double> saving_step_with_rest() const;
  // Attention's share of packed's forward pass.
  std::optional<double> attention_share_fwd() const;
  // Whose runs these are: "attnlab · wgmma-sm90", or "FA2" (its sources are named in the runs).
  std::string label() const;
  // How the matrix products are priced: "GEMMs measured at the model's shapes, FILE",
  // "GEMMs at 756 TFLOP/s", or "no GEMM time measured".
  std::string gemm_pricing() const;
};

// A file's path as the CLI and GUI name it: relative to the working folder where it lies below it.
std::string shown_path(const std::filesystem::path& path);

// `kernel`: ours of that kernel; empty: default_step_kernel(runs). The matrix products are priced at
// `gemms` where given (packed's padded positions, if any, run the same products: scaled by its matrix
// FLOPs over varlen's), else at `gemm_tflops`; the rest of the step at its bytes over `copy_tbps`.
StepTimePrediction predict_step_time(const Scenario& s, const TrainingStep& step, KernelFamily family,
                                     std::optional<double> gemm_tflops, const std::optional<MeasuredGemms>& gemms,
                                     const MeasuredRuns& runs, std::string_view kernel = {},
                                     std::optional<double> copy_tbps = std::nullopt);

}  // namespace attnlab
