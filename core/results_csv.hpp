#pragma once
// The results CSV every run writes and every reader loads (schema: results/README.md). One row per
// (scenario, implementation, dtype, head dim, pass) of a real run, ours or a
// peer's. A value that was not measured is an empty optional and an empty cell,
// never a made-up number.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/pass.hpp"
#include "core/scenario.hpp"

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

  bool operator==(const ResultRow&) const = default;
};

// Every column, fixed ones first, in the order write_results_csv prints them.
const std::vector<std::string_view>& results_columns();
// The first 16: any results file must have them (in any order).
const std::vector<std::string_view>& required_results_columns();

// One cell of a CSV line: quoted (quotes inside doubled) when it holds a comma, a
// quote or edge spaces (readers trim spaces). Throws InputError naming `column` when
// the text holds a line break. Every CSV attnlab writes quotes its text through this.
std::string csv_cell(const std::string& text, std::string_view column);

// Writes the header and rows to path atomically (a temp file beside it, then a
// rename), creating the parent folder. Doubles print in their shortest
// round-trip form. Throws InputError when the file cannot be written.
void write_results_csv(const std::filesystem::path& path, const std::vector<ResultRow>& rows);

// Which rows a reader keeps (every row is checked either way); empty keeps all.
using ResultFilter = std::function<bool(const ResultRow&)>;

// Reads a results file; columns in any order, unknown columns ignored, missing
// extra columns read as empty, a UTF-8 byte-order mark (as a spreadsheet saves
// one) skipped (core/csv_text.hpp). Rows are checked one at a time and only those
// `keep` accepts are held, at most max_results_rows (core/input_limits.hpp), so memory
// follows what is kept, not the file. Throws InputError naming the file, and the line
// and column where it applies, e.g.
//   results/h100/x.csv:7: median_us: expected a number, got "abc"
std::vector<ResultRow> read_results_csv(const std::filesystem::path& path, const ResultFilter& keep = {});

}  // namespace attnlab
