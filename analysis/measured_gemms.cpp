#include "analysis/measured_gemms.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>

#include "core/io/csv_text.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_file.hpp"
#include "core/io/input_limits.hpp"
#include "core/results/results_csv.hpp"

namespace attnlab {

namespace {

// The columns read, in this order; the first ten are required.
constexpr std::array<std::string_view, 12> gemm_columns = {
    "scenario", "gpu", "dtype", "gemm", "pass", "m", "n", "k", "per_step", "median_us", "commit", "date"};
constexpr std::size_t required_gemm_columns = 10;

// A dimension of a product: at most the largest count of tokens or vocabulary a scenario may hold.
constexpr std::int64_t max_gemm_dimension = std::max(max_tokens, max_vocab);

struct BadGemmCell {
  std::string expected;
};

std::int64_t parse_count(const std::string& text, std::int64_t most) {
  const auto value = parse_cell_number<std::int64_t>(text);
  if (!value || *value < 1 || *value > most) throw BadGemmCell{"an integer from 1 to " + std::to_string(most)};
  return *value;
}

std::string parse_text(const std::string& text) {
  if (!is_text_cell(text)) throw BadGemmCell{text_cell_expected()};
  return text;
}

// One row; `column` ends at the cell being parsed, for the error.
GemmRow parse_gemm_row(const std::array<std::string, gemm_columns.size()>& cells, std::size_t& column) {
  const auto cell = [&](std::size_t i) -> const std::string& { return cells[column = i]; };
  GemmRow row;
  row.scenario = parse_text(cell(0));
  row.gpu = parse_text(cell(1));
  const auto dtype = parse_dtype(cell(2));
  if (!dtype) throw BadGemmCell{"bf16 or fp16"};
  row.dtype = *dtype;
  row.gemm = parse_text(cell(3));
  if (cell(4) == "fwd")
    row.pass = GemmPass::fwd;
  else if (cells[4] == "bwd_input")
    row.pass = GemmPass::bwd_input;
  else if (cells[4] == "bwd_weight")
    row.pass = GemmPass::bwd_weight;
  else
    throw BadGemmCell{"fwd, bwd_input or bwd_weight"};
  row.m = parse_count(cell(5), max_gemm_dimension);
  row.n = parse_count(cell(6), max_gemm_dimension);
  row.k = parse_count(cell(7), max_gemm_dimension);
  row.per_step = int(parse_count(cell(8), max_model_layers));
  const auto median = parse_cell_number<double>(cell(9));
  if (!median || !(*median >= min_measured_us) || *median > max_measured_us)
    throw BadGemmCell{"a number of µs from 0.001 to 1e9"};
  row.median_us = *median;
  row.commit = parse_text(cell(10));
  row.date = parse_text(cell(11));
  return row;
}

}  // namespace

std::vector<GemmRow> read_gemms_csv(const std::filesystem::path& path) {
  const std::string name = printable(path.string(), 4096);
  const std::string text = read_input_file(path, "GEMM file", max_results_csv_bytes);
  std::vector<GemmRow> rows;
  CsvRecords records(text, CsvDialect{});
  try {
    std::vector<std::string> line;
    if (!records.next(line)) throw InputError(name + ": empty file, expected a header line");
    const CsvHeader header(line, {gemm_columns.begin(), gemm_columns.end()}, records.line());
    for (std::size_t i = 0; i < required_gemm_columns; ++i)
      if (header.column_of[i] < 0) throw InputError(name + ": missing column " + std::string(gemm_columns[i]));
    std::array<std::string, gemm_columns.size()> cells;
    while (records.next(line)) {
      const std::string at = name + ":" + std::to_string(records.line()) + ": ";
      if (line.size() != header.cells)
        throw InputError(at + (line.size() < header.cells ? "fewer" : "more") + " cells than the header has columns");
      if (static_cast<std::int64_t>(rows.size()) >= max_results_rows)
        throw InputError(at + "more than " + std::to_string(max_results_rows) + " rows in one file");
      for (std::size_t i = 0; i < cells.size(); ++i)
        cells[i] = header.column_of[i] < 0 ? std::string() : std::move(line[header.column_of[i]]);
      std::size_t column = 0;
      try {
        rows.push_back(parse_gemm_row(cells, column));
      } catch (const BadGemmCell& bad) {
        throw InputError(at + std::string(gemm_columns[column]) + ": expected " + bad.expected + ", got \"" +
                         printable(cells[column]) + "\"");
      }
    }
  } catch (const CsvSyntaxError& e) {
    throw InputError(name + ":" + std::to_string(e.line) + ": " + e.what());
  }
  return rows;
}

std::optional<MeasuredGemms> gemms_for_step(const Scenario& s, const TrainingStep& step,
                                            const std::vector<GemmsFile>& files) {
  // Matrix FLOPs per token count every buffer position; the GEMMs run over the tokens (varlen's buffer).
  const StepFlops& matrix = step[Implementation::varlen].matrix;
  const double tokens = double(step.tokens);
  const auto equal = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  // Each file's scenarios summed in one pass over its rows (a map by name), in the order they first appear.
  struct Sums {
    MeasuredGemms priced;
    double fwd_flops = 0, bwd_flops = 0;
    bool same_dtype = true;
  };
  std::vector<std::vector<Sums>> per_file;
  for (const GemmsFile& file : files) {
    std::vector<Sums>& sums = per_file.emplace_back();
    std::map<std::string_view, std::size_t> index;
    for (const GemmRow& row : file.rows) {
      const auto [at, added] = index.try_emplace(row.scenario, sums.size());
      if (added) sums.push_back({MeasuredGemms{0, 0, file.path, row.scenario}});
      Sums& sum = sums[at->second];
      sum.same_dtype = sum.same_dtype && row.dtype == s.dtype;
      const bool fwd = row.pass == GemmPass::fwd;
      (fwd ? sum.fwd_flops : sum.bwd_flops) += row.flops() * row.per_step;
      (fwd ? sum.priced.fwd_us : sum.priced.bwd_us) += row.median_us * row.per_step;
    }
  }
  for (const bool own_name : {true, false})
    for (const std::vector<Sums>& sums : per_file)
      for (const Sums& sum : sums)
        if ((sum.priced.scenario == s.name) == own_name && sum.same_dtype &&
            equal(sum.fwd_flops, matrix.fwd * tokens) && equal(sum.bwd_flops, matrix.bwd * tokens))
          return sum.priced;
  return std::nullopt;
}

}  // namespace attnlab
