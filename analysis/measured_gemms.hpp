#pragma once
// The matrix products of a training step timed at the model's own shapes (attnlab/step/gemms.py;
// columns in train/README.md, "gemms.csv"): `<results folder>/gemms/*.csv`, one row per
// (linear layer, pass). The step-time prediction prices its matrix products at these
// where they cover the model's products exactly, else at the GEMM ceiling.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/training_step.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

// Y = X·Wᵀ forward; dX = dY·W and dW = dYᵀ·X backward.
enum class GemmPass { fwd, bwd_input, bwd_weight };

struct GemmRow {
  std::string scenario;
  std::string gpu;
  DType dtype = DType::bf16;
  std::string gemm;  // the linear layer: attn.c_q, mlp.c_fc, lm_head, ...
  GemmPass pass = GemmPass::fwd;
  std::int64_t m = 0, n = 0, k = 0;  // the product (m x k)·(k x n)
  int per_step = 0;                  // how many such products one step runs
  double median_us = 0;
  std::string commit, date;

  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

struct GemmsFile {
  std::filesystem::path path;
  std::vector<GemmRow> rows;
};

// The folder under a results folder that holds the GEMM files.
inline constexpr const char* gemms_folder_name = "gemms";

// Reads one GEMM file: columns in any order, unknown ones ignored, bounded as a results file
// (core/io/input_limits.hpp). Throws InputError in one line naming the file, line, column and limit.
std::vector<GemmRow> read_gemms_csv(const std::filesystem::path& path);

// The step's matrix products priced at measured GEMMs, µs per step.
struct MeasuredGemms {
  double fwd_us = 0, bwd_us = 0;  // Σ median_us × per_step over fwd, and over bwd_input + bwd_weight
  std::filesystem::path file;     // where the rows came from
  std::string scenario;           // the rows' scenario
};

// The rows of one (file, scenario) whose products are the step's own: of the scenario's dtype,
// their FLOPs per step, forward and backward, equal to the model's matrix FLOPs over the
// scenario's tokens (core/cost/training_step.hpp). Rows of the scenario's own name first; empty where none cover it.
std::optional<MeasuredGemms> gemms_for_step(const Scenario& s, const TrainingStep& step,
                                            const std::vector<GemmsFile>& files);

}  // namespace attnlab
