#include "analysis/step_times.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "analysis/peer_families.hpp"
#include "analysis/primary_runs.hpp"
#include "analysis/same_cells.hpp"
#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

constexpr Implementation flash_implementations[] = {Implementation::padded, Implementation::packed,
                                                    Implementation::varlen};

}  // namespace

const char* kernel_family_name(KernelFamily f) { return f == KernelFamily::attnlab ? "attnlab" : "FA2"; }

const char* measured_step_source(KernelFamily f) {
  return f == KernelFamily::attnlab ? "torch-step-attnlab" : "torch-step-fa2";
}

namespace {

// Rows written before the kernel column existed have it empty and are the teaching kernel's.
constexpr std::string_view unnamed_kernel = "mma-sm80";

std::string_view kernel_of(const ResultRow& row) { return row.kernel.empty() ? unnamed_kernel : row.kernel; }

}  // namespace

std::string default_step_kernel(const MeasuredRuns& runs) {
  for (const ResultRow& row : runs.rows)
    if (row.source == our_source && row.implementation != "naive" && row.median_us) return std::string(kernel_of(row));
  return {};
}

bool ran_in_family(const ResultRow& row, KernelFamily f, std::string_view kernel) {
  if (f == KernelFamily::attnlab)
    return row.source == our_source && row.implementation != "naive" && kernel_of(row) == kernel;
  const SourceFamily* family = family_of(row.source);
  return family && family->name == fa2_family;
}

std::optional<MeasuredAttention> find_measured_attention(const Scenario& layer, Implementation impl, Pass pass,
                                                         KernelFamily family, std::string_view kernel,
                                                         const MeasuredRuns& runs) {
  const ScenarioCells wanted(layer);
  // A run of the same implementation first (the same kernel), then any that computed the same
  // cells; within each, one with the layer's heads first (its time needs no scaling).
  for (const bool same_implementation : {true, false})
    for (const bool same_heads : {true, false})
      for (const ResultRow& row : runs.rows) {
        if (row.pass != pass || !row.median_us || row.heads <= 0 || !ran_in_family(row, family, kernel)) continue;
        if (same_heads && row.heads != layer.heads) continue;
        if (row.head_dim != layer.head_dim || row.dtype != layer.dtype || row.causal != layer.causal) continue;
        const auto j = parse_implementation(row.implementation);
        if (!j || (same_implementation && *j != impl)) continue;
        if (std::find(std::begin(flash_implementations), std::end(flash_implementations), *j) ==
                std::end(flash_implementations) ||
            !runs.cells.computes(wanted, impl, row))
          continue;
        return MeasuredAttention{*row.median_us * layer.heads / row.heads,
                                 *row.median_us,
                                 row.heads,
                                 row.scenario,
                                 *j,
                                 row.source,
                                 family == KernelFamily::attnlab ? std::string(kernel_of(row)) : std::string()};
      }
  return std::nullopt;
}

std::optional<double> ImplementationStepTime::attention_us(Pass pass, const std::array<int, 2>& layers) const {
  double total = 0;
  for (LayerKind kind : all_layer_kinds) {
    if (layers[int(kind)] == 0) continue;
    const auto& t = layer[int(kind)][int(pass)];
    if (!t) return std::nullopt;
    total += layers[int(kind)] * t->us;
  }
  return total;
}

std::optional<double> ImplementationStepTime::step_us(Pass pass, const std::array<int, 2>& layers) const {
  const auto attention = attention_us(pass, layers);
  if (!attention || !gemm_us) return std::nullopt;
  return (*gemm_us)[int(pass)] + *attention;
}

std::optional<double> StepTimePrediction::saving_fwd() const {
  const auto p = packed.step_us(Pass::fwd, layers), v = varlen.step_us(Pass::fwd, layers);
  if (!p || !v) return std::nullopt;
  return 1.0 - *v / *p;
}

std::optional<double> StepTimePrediction::saving_step() const {
  const auto pf = packed.step_us(Pass::fwd, layers), pb = packed.step_us(Pass::bwd, layers);
  const auto vf = varlen.step_us(Pass::fwd, layers), vb = varlen.step_us(Pass::bwd, layers);
  if (!pf || !pb || !vf || !vb) return std::nullopt;
  return 1.0 - (*vf + *vb) / (*pf + *pb);
}

std::optional<double> StepTimePrediction::saving_step_with_rest() const {
  const auto pf = packed.step_us(Pass::fwd, layers), pb = packed.step_us(Pass::bwd, layers);
  const auto vf = varlen.step_us(Pass::fwd, layers), vb = varlen.step_us(Pass::bwd, layers);
  if (!pf || !pb || !vf || !vb || !packed.rest_us || !varlen.rest_us) return std::nullopt;
  return 1.0 - (*vf + *vb + *varlen.rest_us) / (*pf + *pb + *packed.rest_us);
}

std::optional<double> StepTimePrediction::attention_share_fwd() const {
  const auto attention = packed.attention_us(Pass::fwd, layers), step = packed.step_us(Pass::fwd, layers);
  if (!attention || !step) return std::nullopt;
  return *attention / *step;
}

std::string StepTimePrediction::gemm_pricing() const {
  if (gemms) return "GEMMs measured at the model's shapes, " + shown_path(gemms->file);
  if (gemm_tflops) return "GEMMs at " + std::to_string(int(*gemm_tflops + 0.5)) + " TFLOP/s";
  return "no GEMM time measured";
}

std::string shown_path(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return printable(path.string(), 4096);
  const std::filesystem::path relative = path.lexically_proximate(cwd);
  return printable(relative.empty() || *relative.begin() == ".." ? path.string() : relative.string(), 4096);
}

std::string StepTimePrediction::label() const {
  return std::string(kernel_family_name(family)) + (kernel.empty() ? "" : " \xC2\xB7 " + kernel);
}

StepTimePrediction predict_step_time(const Scenario& s, const TrainingStep& step, KernelFamily family,
                                     std::optional<double> gemm_tflops, const std::optional<MeasuredGemms>& gemms,
                                     const MeasuredRuns& runs, std::string_view kernel,
                                     std::optional<double> copy_tbps) {
  StepTimePrediction p;
  p.family = family;
  if (family == KernelFamily::attnlab) p.kernel = kernel.empty() ? default_step_kernel(runs) : std::string(kernel);
  p.gemm_tflops = gemm_tflops;
  p.gemms = gemms;
  p.copy_tbps = copy_tbps;
  p.layers = step.layers;
  for (ImplementationStepTime* t : {&p.packed, &p.varlen}) {
    t->implementation = t == &p.packed ? Implementation::packed : Implementation::varlen;
    const StepFlops& matrix = step[t->implementation].matrix;
    if (gemms) {
      const StepFlops& measured = step[Implementation::varlen].matrix;  // the tokens the GEMMs ran over
      t->gemm_us = {{gemms->fwd_us * matrix.fwd / measured.fwd, gemms->bwd_us * matrix.bwd / measured.bwd}};
    } else if (gemm_tflops) {
      const double tokens = double(step.tokens), us_per_flop = 1e6 / (*gemm_tflops * 1e12);
      t->gemm_us = {{matrix.fwd * tokens * us_per_flop, matrix.bwd * tokens * us_per_flop}};
    }
    t->rest_bytes = step_bytes(step.model, step[t->implementation].positions);
    if (copy_tbps) t->rest_us = t->rest_bytes.total() / (*copy_tbps * 1e12) * 1e6;
    for (LayerKind kind : all_layer_kinds) {
      const Scenario layer = layer_scenario(s, step.model, kind);
      for (Pass pass : {Pass::fwd, Pass::bwd})
        t->layer[int(kind)][int(pass)] =
            find_measured_attention(layer, t->implementation, pass, family, p.kernel, runs);
    }
  }
  return p;
}

}  // namespace attnlab
