#include "core/results/results_csv.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>
#include <tuple>
#include <variant>

#include "core/cost/context_parallel.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/csv_text.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_file.hpp"
#include "core/io/input_limits.hpp"
#include "core/io/shortest_number.hpp"
#include "core/layout/implementation.hpp"

namespace attnlab {

namespace {

// Each column names the ResultRow member it holds; the member's type says how it
// is printed and parsed.
using Field = std::variant<std::string ResultRow::*, int ResultRow::*, bool ResultRow::*, DType ResultRow::*,
                           Pass ResultRow::*, std::optional<double> ResultRow::*,
                           std::optional<std::int64_t> ResultRow::*, std::optional<int> ResultRow::*>;

struct Column {
  std::string_view name;
  Field field;
};

constexpr std::size_t required_count = 16;

const std::array<Column, 47> columns = {{
    {"scenario", &ResultRow::scenario},
    {"implementation", &ResultRow::implementation},
    {"source", &ResultRow::source},
    {"gpu", &ResultRow::gpu},
    {"dtype", &ResultRow::dtype},
    {"heads", &ResultRow::heads},
    {"head_dim", &ResultRow::head_dim},
    {"causal", &ResultRow::causal},
    {"pass", &ResultRow::pass},
    {"median_us", &ResultRow::median_us},
    {"min_us", &ResultRow::min_us},
    {"max_us", &ResultRow::max_us},
    {"useful_tflops", &ResultRow::useful_tflops},
    {"scores_computed", &ResultRow::scores_computed},
    {"scores_useful", &ResultRow::scores_useful},
    {"rel_l2_error", &ResultRow::rel_l2_error},
    {"kv_heads", &ResultRow::kv_heads},
    {"tokens", &ResultRow::tokens},
    {"kernel", &ResultRow::kernel},
    {"tile", &ResultRow::tile},
    {"computed_tflops", &ResultRow::computed_tflops},
    {"max_abs_error", &ResultRow::max_abs_error},
    {"bleed_rel_l2", &ResultRow::bleed_rel_l2},
    {"hbm_bytes_model", &ResultRow::hbm_bytes_model},
    {"hbm_bytes_measured", &ResultRow::hbm_bytes_measured},
    {"extra_memory_bytes", &ResultRow::extra_memory_bytes},
    {"reps", &ResultRow::reps},
    {"driver", &ResultRow::driver},
    {"cuda_version", &ResultRow::cuda_version},
    {"commit", &ResultRow::commit},
    {"date", &ResultRow::date},
    {"ranks", &ResultRow::ranks},
    {"cp_strategy", &ResultRow::cp_strategy},
    {"window_left", &ResultRow::window_left},
    {"window_right", &ResultRow::window_right},
    {"cp_exchange", &ResultRow::cp_exchange},
    {"cp_rank", &ResultRow::cp_rank},
    {"cp_gpus", &ResultRow::cp_gpus},
    {"cp_whole_us", &ResultRow::cp_whole_us},
    {"cp_run_us", &ResultRow::cp_run_us},
    {"cp_transfer_us", &ResultRow::cp_transfer_us},
    {"cp_exposed_us", &ResultRow::cp_exposed_us},
    {"cp_kv_bytes_received", &ResultRow::cp_kv_bytes_received},
    {"cp_sm_margin", &ResultRow::cp_sm_margin},
    {"cp_transfer_channels", &ResultRow::cp_transfer_channels},
    {"cp_registered_buffers", &ResultRow::cp_registered_buffers},
    {"cp_ring_buffers", &ResultRow::cp_ring_buffers},
}};

// ---- printing ---------------------------------------------------------------

}  // namespace

CpTransferSettings cp_transfer_settings(const ResultRow& row) {
  CpTransferSettings s;
  s.sm_margin = row.cp_sm_margin.value_or(s.sm_margin);
  s.transfer_channels = row.cp_transfer_channels.value_or(s.transfer_channels);
  s.registered_buffers = row.cp_registered_buffers.has_value();
  s.ring_buffers = row.cp_ring_buffers.value_or(s.ring_buffers);
  return s;
}

void set_cp_transfer_settings(ResultRow& row, const CpTransferSettings& settings) {
  const CpTransferSettings defaults;
  const auto unless_default = [](int value, int default_value) {
    return value == default_value ? std::nullopt : std::optional(value);
  };
  row.cp_registered_buffers = settings.registered_buffers ? std::optional(1) : std::nullopt;
  const bool ring = row.cp_exchange == cp_exchange_name(CpExchange::ring);
  row.cp_sm_margin = ring ? unless_default(settings.sm_margin, defaults.sm_margin) : std::nullopt;
  row.cp_transfer_channels =
      ring ? unless_default(settings.transfer_channels, defaults.transfer_channels) : std::nullopt;
  row.cp_ring_buffers = ring ? unless_default(settings.ring_buffers, defaults.ring_buffers) : std::nullopt;
}

std::string csv_cell(const std::string& text, std::string_view column) {
  if (text.find_first_of("\r\n") != std::string::npos)
    throw InputError("results CSV: " + std::string(column) + ": a value cannot hold a line break");
  const bool quote =
      text.find_first_of(",\"") != std::string::npos || (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

namespace {

struct Printer {
  const ResultRow& row;
  std::string operator()(std::string ResultRow::*m) const { return row.*m; }
  std::string operator()(int ResultRow::*m) const { return shortest_text(row.*m); }
  std::string operator()(bool ResultRow::*m) const { return row.*m ? "true" : "false"; }
  std::string operator()(DType ResultRow::*m) const { return dtype_name(row.*m); }
  std::string operator()(Pass ResultRow::*m) const { return pass_name(row.*m); }
  template <class T>
  std::string operator()(std::optional<T> ResultRow::*m) const {
    return (row.*m).has_value() ? shortest_text(*(row.*m)) : std::string();
  }
};

// ---- parsing ----------------------------------------------------------------

// What a cell should have held; the reader adds the file, line and column.
struct BadCell {
  std::string expected;
};

// Every number of the schema counts or measures something (times, rates, errors, bytes):
// none is negative, and none is NaN or infinite, which from_chars would accept.
template <class Number>
Number parse_number(const std::string& text, const char* expected) {
  const std::optional<Number> value = parse_cell_number<Number>(text);
  if (!value || !(*value >= 0)) throw BadCell{expected};
  return *value;
}

// A time taken: from min_measured_us to max_measured_us (core/io/input_limits.hpp).
double parse_measured_us(const std::string& text) {
  const std::optional<double> us = parse_cell_number<double>(text);
  if (!us || !(*us >= min_measured_us) || *us > max_measured_us) throw BadCell{"a number of µs from 0.001 to 1e9"};
  return *us;
}

template <class Number>
constexpr const char* number_kind() {
  return std::is_floating_point_v<Number> ? "a finite number >= 0" : "an integer >= 0";
}

struct Parser {
  const std::string& text;
  ResultRow& row;
  bool& step;  // pass = step: a measured training step, not an attention run
  // Text is printed as read (attnlab model, the GUI), so it must be printable: no control
  // character, no byte that is not UTF-8. An implementation is one of the four.
  void operator()(std::string ResultRow::*m) const {
    if (!is_text_cell(text)) throw BadCell{text_cell_expected()};
    if (m == &ResultRow::implementation && !parse_implementation(text))
      throw BadCell{"naive, padded, packed or varlen"};
    if (m == &ResultRow::cp_strategy && !text.empty() && !parse_cp_strategy(text))
      throw BadCell{"contiguous, zigzag or documents"};
    if (m == &ResultRow::cp_exchange && !text.empty() && !parse_cp_exchange(text)) throw BadCell{"ring or all-gather"};
    row.*m = text;
  }
  void operator()(int ResultRow::*m) const { row.*m = parse_number<int>(text, number_kind<int>()); }
  void operator()(bool ResultRow::*m) const {
    if (text != "true" && text != "false") throw BadCell{"true or false"};
    row.*m = text == "true";
  }
  void operator()(DType ResultRow::*m) const {
    const auto dtype = parse_dtype(text);
    if (!dtype) throw BadCell{"bf16 or fp16"};
    row.*m = *dtype;
  }
  void operator()(Pass ResultRow::*m) const {
    if (text != "fwd" && text != "bwd" && text != "step") throw BadCell{"fwd, bwd or step"};
    step = text == "step";
    row.*m = text == "bwd" ? Pass::bwd : Pass::fwd;
  }
  template <class T>
  void operator()(std::optional<T> ResultRow::*m) const {
    if (text.empty())
      row.*m = std::nullopt;
    else if constexpr (std::is_same_v<T, int>)
      row.*m = m == &ResultRow::ranks || m == &ResultRow::cp_gpus ? parse_ranks()
               : m == &ResultRow::window_left || m == &ResultRow::window_right
                   ? parse_window_side()
                   : parse_number<T>(text, number_kind<T>());
    else if constexpr (std::is_same_v<T, double>)
      row.*m = m == &ResultRow::median_us || m == &ResultRow::min_us || m == &ResultRow::max_us ||
                       m == &ResultRow::cp_whole_us || m == &ResultRow::cp_run_us
                   ? parse_measured_us(text)
                   : parse_number<T>(text, number_kind<T>());
    else
      row.*m = parse_number<T>(text, number_kind<T>());
  }
  // A side of a window: -1 (unbounded) to max_window, as scenarios take it.
  int parse_window_side() const {
    const std::optional<int> side = parse_cell_number<int>(text);
    if (!side || *side < -1 || *side > max_window)
      throw BadCell{"an integer from -1 (unbounded) to " + std::to_string(max_window)};
    return *side;
  }
  int parse_ranks() const {
    const std::string expected = "an integer from 1 to " + std::to_string(max_cp_ranks);
    const int ranks = parse_number<int>(text, expected.c_str());
    if (ranks < 1 || ranks > max_cp_ranks) throw BadCell{expected};
    return ranks;
  }
};

// ---- the step columns ------------------------------------------------------

// A step's part may be 0 µs (nothing to communicate on one GPU), never more than a time can be.
double parse_part_us(const std::string& text) {
  const double us = parse_number<double>(text, "a number of µs from 0 to 1e9");
  if (us > max_measured_us) throw BadCell{"a number of µs from 0 to 1e9"};
  return us;
}

// gpus, gradient_sync, optimizer, loss, the parts, their sum, the exposed communication
constexpr std::size_t step_column_count = 4 + std::size(all_step_parts) + 2;
constexpr std::size_t gradient_sync_column = 1, first_part_column = 4,
                      kernels_column = first_part_column + std::size(all_step_parts);

const std::array<std::string, step_column_count>& step_column_names() {
  static const std::array<std::string, step_column_count> names = [] {
    std::array<std::string, step_column_count> n{"gpus", "gradient_sync", "optimizer", "loss"};
    for (StepPart p : all_step_parts) n[first_part_column + int(p)] = std::string("step_") + step_part_name(p) + "_us";
    n[kernels_column] = "step_kernels_us";
    n.back() = "step_communication_exposed_us";
    return n;
  }();
  return names;
}

// The value of `all` that `name` prints as `text`; empty where none does.
template <class Enum, std::size_t N>
std::optional<Enum> parse_named(const std::string& text, const Enum (&all)[N], const char* (*name)(Enum)) {
  for (Enum e : all)
    if (text == name(e)) return e;
  return std::nullopt;
}

// The step columns of one row into `step`; a cell that is not its column's kind throws BadCell.
void parse_step_cell(std::size_t i, const std::string& text, StepRow& step) {
  if (i == 0) {
    const int gpus = parse_number<int>(text, "an integer from 1 to 1024");
    if (gpus < 1 || gpus > max_step_gpus) throw BadCell{"an integer from 1 to " + std::to_string(max_step_gpus)};
    step.gpus = gpus;
  } else if (i == gradient_sync_column) {
    step.gradient_sync = parse_named(text, all_gradient_syncs, gradient_sync_name);
    if (!step.gradient_sync) throw BadCell{"after_backward, during_backward or sharded (several GPUs; empty on one)"};
  } else if (i == 2) {
    const auto optimizer = parse_named(text, all_step_optimizers, step_optimizer_name);
    if (!optimizer) throw BadCell{"adamw or muon"};
    step.optimizer = *optimizer;
  } else if (i == 3) {  // a loss is no count: any finite number
    step.loss = parse_cell_number<double>(text);
    if (!step.loss) throw BadCell{"a finite number"};
  } else {
    (i == kernels_column  ? step.kernels_us
     : i > kernels_column ? step.communication_exposed_us
                          : step.parts[i - first_part_column]) = parse_part_us(text);
  }
}

// A step row: the columns both kinds of row share, then the step's own (already in `step`).
StepRow step_row_of(ResultRow&& r, StepRow&& step) {
  step.scenario = std::move(r.scenario);
  step.implementation = std::move(r.implementation);
  step.source = std::move(r.source);
  step.gpu = std::move(r.gpu);
  step.dtype = r.dtype;
  step.heads = r.heads;
  step.head_dim = r.head_dim;
  step.causal = r.causal;
  step.median_us = *r.median_us;
  step.min_us = r.min_us;
  step.max_us = r.max_us;
  step.kv_heads = r.kv_heads;
  step.tokens = r.tokens;
  step.kernel = std::move(r.kernel);
  step.reps = r.reps;
  step.driver = std::move(r.driver);
  step.cuda_version = std::move(r.cuda_version);
  step.commit = std::move(r.commit);
  step.date = std::move(r.date);
  return std::move(step);
}

// What is wrong with a row's context-parallel columns beyond ranks and cp_strategy (checked
// before): the column and the message; empty where nothing is.
struct CpCellProblem {
  std::string_view column;
  std::string message;
};

std::optional<CpCellProblem> cp_columns_problem(const ResultRow& r) {
  const bool cp = r.ranks.has_value();
  const std::pair<std::string_view, bool> rank_cells[] = {{"cp_exchange", !r.cp_exchange.empty()},
                                                          {"cp_rank", r.cp_rank.has_value()},
                                                          {"cp_gpus", r.cp_gpus.has_value()},
                                                          {"cp_whole_us", r.cp_whole_us.has_value()}};
  const bool over_nccl = cp && r.cp_gpus && *r.cp_gpus > 1;
  const std::pair<std::string_view, bool> run_cells[] = {{"cp_run_us", r.cp_run_us.has_value()},
                                                         {"cp_transfer_us", r.cp_transfer_us.has_value()},
                                                         {"cp_exposed_us", r.cp_exposed_us.has_value()},
                                                         {"cp_kv_bytes_received", r.cp_kv_bytes_received.has_value()}};
  for (const auto& [column, filled] : rank_cells)
    if (filled != cp)
      return CpCellProblem{column, cp ? "a context-parallel row names its exchange, rank, GPUs and whole run, got an "
                                        "empty cell"
                                      : "only a context-parallel row (ranks and cp_strategy) holds a value"};
  if (cp && *r.cp_rank >= *r.ranks)
    return CpCellProblem{
        "cp_rank", "expected a rank below ranks (" + std::to_string(*r.ranks) + "), got " + std::to_string(*r.cp_rank)};
  if (cp && *r.cp_gpus != 1 && *r.cp_gpus != *r.ranks)
    return CpCellProblem{"cp_gpus", "expected 1 (the ranks one after another) or ranks (" + std::to_string(*r.ranks) +
                                        ", one GPU each), got " + std::to_string(*r.cp_gpus)};
  for (const auto& [column, filled] : run_cells)
    if (filled != over_nccl)
      return CpCellProblem{column, over_nccl ? "a run over several GPUs names its run, transfers, exposed time and "
                                               "bytes received, got an empty cell"
                                             : "only a context-parallel run over several GPUs (cp_gpus > 1) holds a "
                                               "value"};
  const std::pair<std::string_view, bool> setting_cells[] = {
      {"cp_sm_margin", r.cp_sm_margin.has_value()},
      {"cp_transfer_channels", r.cp_transfer_channels.has_value()},
      {"cp_registered_buffers", r.cp_registered_buffers.has_value()},
      {"cp_ring_buffers", r.cp_ring_buffers.has_value()}};
  for (const auto& [column, filled] : setting_cells)
    if (filled && !over_nccl)
      return CpCellProblem{column, "only a context-parallel run over several GPUs (cp_gpus > 1) holds a value"};
  if (r.cp_registered_buffers && *r.cp_registered_buffers != 1)
    return CpCellProblem{"cp_registered_buffers",
                         "expected 1 (registered) or an empty cell, got " + std::to_string(*r.cp_registered_buffers)};
  if (r.cp_ring_buffers && (*r.cp_ring_buffers < 2 || *r.cp_ring_buffers > max_cp_ranks))
    return CpCellProblem{"cp_ring_buffers", "expected 2 to " + std::to_string(max_cp_ranks) +
                                                " buffers or an empty cell (2), got " +
                                                std::to_string(*r.cp_ring_buffers)};
  return std::nullopt;
}

// Required columns whose cells may not be empty: they say what was run. Measurements
// may be empty (not measured), and so may gpu: a row that ran on none (results/README.md).
bool must_have_value(const Column& c) {
  return c.name != "gpu" && !std::holds_alternative<std::optional<double> ResultRow::*>(c.field) &&
         !std::holds_alternative<std::optional<std::int64_t> ResultRow::*>(c.field) &&
         !std::holds_alternative<std::optional<int> ResultRow::*>(c.field) &&
         &c - columns.data() < static_cast<std::ptrdiff_t>(required_count);
}

// A data line that repeats the header (two files joined with `cat`): every fixed column holds its own name.
template <std::size_t N>
bool is_repeated_header(const std::array<std::string, N>& cells) {
  for (std::size_t i = 0; i < required_count; ++i)
    if (cells[i] != columns[i].name) return false;
  return true;
}

}  // namespace

bool is_text_cell(std::string_view text) {
  return static_cast<std::int64_t>(text.size()) <= max_text_cell_bytes && printable(text, text.size()) == text;
}

std::string text_cell_expected() {
  return "printable text of at most " + std::to_string(max_text_cell_bytes) + " bytes (no control character, UTF-8)";
}

const char* step_part_name(StepPart p) {
  switch (p) {
    case StepPart::attention_fwd: return "attention_fwd";
    case StepPart::attention_bwd: return "attention_bwd";
    case StepPart::gemm: return "gemm";
    case StepPart::elementwise: return "elementwise";
    case StepPart::loss: return "loss";
    case StepPart::optimizer: return "optimizer";
    case StepPart::communication: return "communication";
    case StepPart::other: return "other";
  }
  return "?";
}

const char* step_optimizer_name(StepOptimizer o) { return o == StepOptimizer::muon ? "muon" : "adamw"; }

const char* gradient_sync_name(GradientSync g) {
  switch (g) {
    case GradientSync::after_backward: return "after_backward";
    case GradientSync::during_backward: return "during_backward";
    case GradientSync::sharded: return "sharded";
  }
  return "?";
}

const std::vector<std::string_view>& results_columns() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const Column& c : columns) n.push_back(c.name);
    return n;
  }();
  return names;
}

const std::vector<std::string_view>& required_results_columns() {
  static const std::vector<std::string_view> names(results_columns().begin(),
                                                   results_columns().begin() + required_count);
  return names;
}

const std::vector<std::string_view>& step_results_columns() {
  static const std::vector<std::string_view> names(step_column_names().begin(), step_column_names().end());
  return names;
}

void write_results_csv(const std::filesystem::path& path, const std::vector<ResultRow>& rows) {
  std::string text;
  for (const Column& c : columns) {
    if (&c != columns.data()) text += ',';
    text += c.name;
  }
  text += '\n';
  for (const ResultRow& row : rows) {
    for (const Column& c : columns) {
      if (&c != columns.data()) text += ',';
      text += csv_cell(std::visit(Printer{row}, c.field), c.name);
    }
    text += '\n';
  }
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  write_file_atomically(path, text, "results file");
}

ResultsRows read_results_rows(const std::filesystem::path& path, const ResultFilter& keep) {
  const std::string name = printable(path.string(), 4096);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) throw InputError(name + ": no such results file");
  const std::string text = read_input_file(path, "results file", max_results_csv_bytes);
  static const std::vector<std::string_view> wanted = [] {
    std::vector<std::string_view> w = results_columns();
    w.insert(w.end(), step_results_columns().begin(), step_results_columns().end());
    return w;
  }();
  ResultsRows rows;
  CsvRecords records(text, CsvDialect{});
  try {
    std::vector<std::string> line;
    if (!records.next(line)) throw InputError(name + ": empty file, expected a header line");
    const CsvHeader header(line, wanted, records.line());
    for (std::size_t i = 0; i < required_count; ++i)
      if (header.column_of[i] < 0) throw InputError(name + ": missing column " + std::string(columns[i].name));
    std::array<std::string, columns.size() + step_column_count> cells;
    while (records.next(line)) {
      const std::string at = name + ":" + std::to_string(records.line()) + ": ";
      if (line.size() < header.cells) throw InputError(at + "fewer cells than the header has columns");
      if (line.size() > header.cells) throw InputError(at + "more cells than the header has columns");
      for (std::size_t i = 0; i < cells.size(); ++i)  // columns absent from the file stay empty
        cells[i] = header.column_of[i] < 0 ? std::string() : std::move(line[header.column_of[i]]);
      if (is_repeated_header(cells))
        throw InputError(at + "the header line again (files joined?); expected a row of values");
      ResultRow row;
      bool step = false;
      const auto bad_cell = [&](std::string_view column, const std::string& what) {
        return InputError(at + std::string(column) + ": " + what);
      };
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const Column& c = columns[i];
        if (cells[i].empty() && must_have_value(c)) throw bad_cell(c.name, "expected a value, got an empty cell");
        try {
          std::visit(Parser{cells[i], row, step}, c.field);
        } catch (const BadCell& bad) {
          throw bad_cell(c.name, "expected " + bad.expected + ", got \"" + printable(cells[i]) + "\"");
        }
      }
      StepRow step_columns;
      for (std::size_t i = 0; i < step_column_count; ++i) {
        const std::string& cell = cells[columns.size() + i];
        const std::string& column = step_column_names()[i];
        if (cell.empty()) {
          if (step && i == 0) throw bad_cell(column, "a step row needs the GPUs it ran on, got an empty cell");
          continue;
        }
        if (!step) throw bad_cell(column, "only a step row (pass step) holds a value, got \"" + printable(cell) + "\"");
        try {
          parse_step_cell(i, cell, step_columns);
        } catch (const BadCell& bad) {
          throw bad_cell(column, "expected " + bad.expected + ", got \"" + printable(cell) + "\"");
        }
      }
      // One GPU averages nothing; on several, a row from before the column synchronized after the backward.
      if (step && step_columns.gpus == 1 && step_columns.gradient_sync)
        throw bad_cell(step_column_names()[gradient_sync_column],
                       "a one-GPU step row has no all-reduce: expected an empty cell, got \"" +
                           printable(cells[columns.size() + gradient_sync_column]) + "\"");
      if (step && step_columns.gpus > 1 && !step_columns.gradient_sync)
        step_columns.gradient_sync = GradientSync::after_backward;
      if (step && (row.ranks || !row.cp_strategy.empty()))
        throw bad_cell(row.ranks ? "ranks" : "cp_strategy",
                       "only a context-parallel attention run holds a value, not a step row (pass step)");
      if (row.window_left.has_value() != row.window_right.has_value())
        throw bad_cell(row.window_left ? "window_right" : "window_left",
                       "a row names both sides of its window or neither, got an empty cell");
      if (row.ranks.has_value() != !row.cp_strategy.empty())
        throw bad_cell(row.ranks ? "cp_strategy" : "ranks",
                       "a context-parallel row names both ranks and cp_strategy, got an empty cell");
      if (const std::optional<CpCellProblem> problem = cp_columns_problem(row))
        throw bad_cell(problem->column, problem->message);
      if (step) {
        if (row.implementation != "packed" && row.implementation != "varlen")
          throw bad_cell("implementation",
                         "a step row's layout: expected packed or varlen, got \"" + row.implementation + "\"");
        if (!row.median_us) throw bad_cell("median_us", "a step row needs the step's time, got an empty cell");
      } else if (!row.ranks && keep && !keep(row)) {
        continue;
      }
      if (static_cast<std::int64_t>(rows.runs.size() + rows.steps.size() + rows.cp.size()) >= max_results_rows)
        throw InputError(at + "more than " + std::to_string(max_results_rows) + " rows to keep from one file");
      if (step)
        rows.steps.push_back(step_row_of(std::move(row), std::move(step_columns)));
      else if (row.ranks)
        rows.cp.push_back(std::move(row));
      else
        rows.runs.push_back(std::move(row));
    }
  } catch (const CsvSyntaxError& e) {
    throw InputError(name + ":" + std::to_string(e.line) + ": " + e.what());
  }
  return rows;
}

std::vector<ResultRow> read_results_csv(const std::filesystem::path& path, const ResultFilter& keep) {
  return read_results_rows(path, keep).runs;
}

}  // namespace attnlab
