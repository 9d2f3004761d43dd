// attnlab-resolve SCENARIO: the scenario as attnlab's loader resolves it, printed as
// one JSON object, so a script (bench/peers/torch_peers.py) runs the very documents,
// packed rows and result columns the C++ side uses, with no second copy of the
// loader, the length generators or the packing.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/cost_model.hpp"
#include "core/input_error.hpp"
#include "core/program_exit.hpp"
#include "core/results_csv.hpp"
#include "core/scenario_file.hpp"

namespace {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <class T, class Format>
std::string json_array(const std::vector<T>& items, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + format(items[i]);
  return out + "]";
}

// Each packed row as runs of consecutive canonical tokens: [[start, count], ...].
// Runs, not one index per position, keep a million-token scenario's JSON small.
std::vector<std::string> packed_row_runs(const attnlab::Layout& packed) {
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

void print_scenario(const attnlab::Scenario& s) {
  auto number = [](auto n) { return std::to_string(n); };
  auto text = [](std::string_view v) { return json_string(v); };
  auto verbatim = [](const std::string& v) { return v; };
  std::printf("{\"name\":%s,\"why\":%s,\"heads\":%d,\"kv_heads\":%d,\"head_dim\":%d,\"dtype\":%s,\"causal\":%s,",
              json_string(s.name).c_str(), json_string(s.why).c_str(), s.heads, s.kv_heads, s.head_dim,
              json_string(attnlab::dtype_name(s.dtype)).c_str(), s.causal ? "true" : "false");
  std::printf("\"row_len\":%d,\"packing\":%s,\"padded_length\":%d,", s.row_len,
              json_string(attnlab::packing_policy_name(s.packing)).c_str(), s.padded_length());
  std::printf("\"doc_lengths\":%s,", json_array(s.doc_lengths, number).c_str());
  std::printf("\"packed_rows\":%s,", json_array(packed_row_runs(s.packed_layout()), verbatim).c_str());
  // Useful scores (all heads) of each implementation's layout: a packed row that cuts a
  // document loses the cells across the cut, so a peer's useful FLOPs follow its layout.
  const attnlab::CostModel model = attnlab::model_costs(s);
  std::string useful = "{";
  for (attnlab::Implementation i : attnlab::all_implementations)
    useful += (useful.size() > 1 ? "," : "") + json_string(attnlab::implementation_name(i)) + ":" +
              std::to_string(model[i].scores_useful());
  std::printf("\"scores_useful\":%s,", (useful + "}").c_str());
  std::printf("\"results_columns\":%s}\n", json_array(attnlab::results_columns(), text).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") {
    std::fprintf(stderr, "usage: attnlab-resolve SCENARIO   (a name from `attnlab list` or a .toml path)\n");
    return 2;
  }
  return attnlab::run_program("attnlab-resolve", [&] {
    print_scenario(attnlab::load_scenario(argv[1]));
    return 0;
  });
}
