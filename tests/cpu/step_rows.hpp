#pragma once
// Step rows (pass = step) as attnlab/step/rows.py writes them, for the tests of the measured step:
// one StepFixture per row, its step columns in step_results_columns() order.
#include <array>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/results/results_csv.hpp"

namespace attnlab {

struct StepFixture {
  std::string implementation = "packed";
  std::string source = "torch-step-fa2";
  std::string kernel;
  int gpus = 1;
  double median_us = 0;
  std::array<double, std::size(all_step_parts)> parts{};  // [StepPart]
  std::int64_t tokens = 0;
  std::string scenario = "nanochat-d24";
  std::string optimizer = "adamw";
  std::string gradient_sync;  // the cell as written: empty, after_backward, during_backward or anything
  double exposed_us = -1;     // step_communication_exposed_us; negative: empty

  double kernels_us() const { return std::accumulate(parts.begin(), parts.end(), 0.0); }
};

inline std::string step_header() {
  std::string h =
      "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,useful_tflops,"
      "scores_computed,scores_useful,rel_l2_error,kv_heads,tokens,kernel,reps";
  for (std::string_view c : step_results_columns()) h += "," + std::string(c);
  return h + "\n";
}

// gpus, gradient_sync, optimizer, loss, the parts, their sum, the exposed communication.
inline std::string step_line(const StepFixture& f) {
  std::ostringstream line;
  line << f.scenario << "," << f.implementation << "," << f.source << ",NVIDIA H100 80GB HBM3,bf16,12,128,true,step,"
       << f.median_us << "," << f.median_us << "," << f.median_us << ",,,,,12," << f.tokens << "," << f.kernel << ",20,"
       << f.gpus << "," << f.gradient_sync << "," << f.optimizer << ",3.25";
  for (double part : f.parts) line << "," << part;
  line << "," << f.kernels_us() << ",";
  if (f.exposed_us >= 0) line << f.exposed_us;
  line << "\n";
  return line.str();
}

// An FA2 pair of one GPU with profiled parts: varlen saves attention time, the rest as packed's.
inline std::vector<StepFixture> profiled_fa2_pair(std::int64_t tokens) {
  StepFixture packed{
      .median_us = 400000, .parts = {30000, 70000, 200000, 40000, 10000, 20000, 0, 5000}, .tokens = tokens};
  StepFixture varlen = packed;
  varlen.implementation = "varlen";
  varlen.parts[int(StepPart::attention_fwd)] = 20000;
  varlen.parts[int(StepPart::attention_bwd)] = 50000;
  varlen.median_us = packed.median_us - 30000 + 1000;  // idle grows by 1000 µs
  return {packed, varlen};
}

inline std::string step_csv(const std::vector<StepFixture>& rows) {
  std::string text = step_header();
  for (const StepFixture& f : rows) text += step_line(f);
  return text;
}

}  // namespace attnlab
