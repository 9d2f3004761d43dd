#include "cli/model_json.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/peer_families.hpp"
#include "analysis/roofline.hpp"
#include "cli/json.hpp"
#include "core/cost/training_step.hpp"
#include "core/io/shortest_number.hpp"
#include "core/results/results_csv.hpp"

namespace attnlab::cli {

namespace {

// Each packed row as runs of consecutive canonical tokens: [[start, count], ...].
// Runs, not one index per position, keep a million-token scenario's JSON small.
std::vector<std::string> packed_row_runs(const Layout& packed) {
  std::vector<std::string> rows;
  for (int r = 0; r < packed.num_rows(); ++r) {
    std::string row = "[";
    std::int64_t run_start = -1, run_count = 0;
    auto flush = [&] {
      if (run_count == 0) return;
      row += (row.size() > 1 ? ",[" : "[") + std::to_string(run_start) + "," + std::to_string(run_count) + "]";
    };
    for (int p = packed.row_start[r]; p < packed.row_start[r] + packed.row_valid[r]; ++p) {
      const std::int64_t token = packed.token_source[p];
      if (run_count > 0 && token == run_start + run_count) {
        ++run_count;
      } else {
        flush();
        run_start = token;
        run_count = 1;
      }
    }
    flush();
    rows.push_back(row + "]");
  }
  return rows;
}

// The [model] table, and each layer's window (FlashAttention's left size, -1 = the
// whole row) as core/cost/training_step.hpp assigns it, so a script builds the same model.
std::string model_object(const ModelShape& m) {
  std::vector<int> windows;
  for (int layer = 0; layer < m.layers; ++layer) windows.push_back(layer_window_left(m, layer_kind(m, layer)));
  const auto number = [](int n) { return std::to_string(n); };
  return "{\"layers\":" + number(m.layers) + ",\"width\":" + number(m.width) + ",\"heads\":" + number(m.heads) +
         ",\"kv_heads\":" + number(m.kv_heads) + ",\"head_dim\":" + number(m.head_dim) +
         ",\"mlp_ratio\":" + number(m.mlp_ratio) + ",\"vocab\":" + number(m.vocab) +
         ",\"seq_len\":" + number(m.seq_len) + ",\"window_pattern\":" + json_string(m.window_pattern) +
         ",\"short_window\":" + number(m.short_window) + ",\"layer_windows\":" + json_array(windows, number) + "}";
}

// results/peer_families.csv as the C++ reads it: each family's sources by implementation, in
// the file's order (where a configuration holds several, the first found stands).
std::string families_array() {
  const auto sources = [](const std::vector<std::string>& names) { return json_array(names, json_string); };
  const auto family = [&](const SourceFamily& f) {
    std::string by_implementation = "{";
    for (Implementation i : all_implementations)
      by_implementation += (by_implementation.size() > 1 ? "," : "") + json_string(implementation_name(i)) + ":" +
                           sources(f.sources[static_cast<int>(i)]);
    return "{\"name\":" + json_string(f.name) + ",\"short_name\":" + json_string(f.short_name) +
           ",\"sources\":" + by_implementation + "}}";
  };
  return json_array(source_families(), family);
}

// The least time of any forward pass over the scenario's documents: its useful FLOPs (varlen's:
// every useful score, none wasted) at the GEMM ceiling, or the least bytes of its tokens (Q, K, V
// read once, O written once) at the copy ceiling, whichever is longer (analysis/roofline.hpp).
std::string floor_object(const Scenario& s, const CostModel& model, const Ceilings& ceilings) {
  const ImplementationCost& varlen = model[Implementation::varlen];
  const std::int64_t bytes = least_bytes(varlen.buffer_tokens, s.heads, s.kv_heads, s.head_dim, s.dtype, Pass::fwd);
  const TimeFloor floor = time_floor(double(varlen.flops_useful_fwd), double(bytes), ceilings);
  return "{\"flops_useful\":" + std::to_string(varlen.flops_useful_fwd) + ",\"least_bytes\":" + std::to_string(bytes) +
         ",\"flops_us\":" + shortest_text(floor.flops_us) + ",\"bytes_us\":" + shortest_text(floor.bytes_us) +
         ",\"us\":" + shortest_text(floor.us()) + ",\"memory_bound\":" + (floor.memory_bound() ? "true" : "false") +
         "}";
}

}  // namespace

void print_model_json(const Scenario& s, const Layout& packed, const CostModel& model,
                      const std::optional<Ceilings>& ceilings) {
  auto number = [](auto n) { return std::to_string(n); };
  auto text = [](std::string_view v) { return json_string(v); };
  auto verbatim = [](const std::string& v) { return v; };
  std::printf("{\"name\":%s,\"why\":%s,\"heads\":%d,\"kv_heads\":%d,\"head_dim\":%d,\"dtype\":%s,\"causal\":%s,",
              json_string(s.name).c_str(), json_string(s.why).c_str(), s.heads, s.kv_heads, s.head_dim,
              json_string(dtype_name(s.dtype)).c_str(), s.causal ? "true" : "false");
  // FlashAttention's window_size; -1 = unbounded on that side.
  std::printf("\"window_left\":%d,\"window_right\":%d,", s.window.left, s.window.right);
  std::printf("\"row_len\":%d,\"packing\":%s,\"padded_length\":%d,", s.row_len,
              json_string(packing_policy_name(s.packing)).c_str(), s.padded_length());
  std::printf("\"doc_lengths\":%s,", json_array(s.doc_lengths, number).c_str());
  std::printf("\"packed_rows\":%s,", json_array(packed_row_runs(packed), verbatim).c_str());
  std::printf("\"tile\":[%d,%d],", model.tile.rows, model.tile.cols);
  std::printf("\"model\":%s,", s.model ? model_object(*s.model).c_str() : "null");
  // Useful scores (all heads) of each implementation's layout: a packed row that cuts a
  // document loses the cells across the cut, so a peer's useful FLOPs follow its layout.
  std::string useful = "{";
  for (Implementation i : all_implementations)
    useful += (useful.size() > 1 ? "," : "") + json_string(implementation_name(i)) + ":" +
              std::to_string(model[i].scores_useful());
  std::printf("\"scores_useful\":%s,", (useful + "}").c_str());
  std::printf("\"results_columns\":%s,", json_array(results_columns(), text).c_str());
  std::printf("\"families\":%s,", families_array().c_str());
  if (ceilings)
    std::printf("\"ceilings\":{\"tflops\":%s,\"tbps\":%s},\"floor\":%s}\n", shortest_text(ceilings->tflops).c_str(),
                shortest_text(ceilings->tbps).c_str(), floor_object(s, model, *ceilings).c_str());
  else
    std::printf("\"ceilings\":null,\"floor\":null}\n");
}

}  // namespace attnlab::cli
