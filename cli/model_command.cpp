#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "analysis/measured_summary.hpp"
#include "analysis/number_format.hpp"
#include "cli/commands.hpp"
#include "cli/model_json.hpp"
#include "cli/results_folder.hpp"
#include "cli/table.hpp"
#include "core/cost/backward_cost.hpp"
#include "core/cost/cost_model.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/layout/tile_name.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario_file.hpp"
#include "core/scenario/scenario_layouts.hpp"

namespace attnlab::cli {

namespace {

struct ModelOptions {
  std::string scenario = default_scenario_name;
  std::string format = "table";
  std::string tile = "64x64";
  std::string ceilings;  // json: a ceilings.toml for the scenario's floor
  bool all_runs = false;
};

// "BrxBc", e.g. "64x64": query rows by key columns of a flash tile.
TileShape parse_tile(const std::string& text) {
  constexpr int largest = max_tile_side;  // the cost model's counts stay inside int64 (core/io/input_limits.hpp)
  const auto fail = [&]() -> TileShape {
    throw InputError("--tile: expected BrxBc with two integers from 1 to " + std::to_string(largest) +
                     ", e.g. 64x64, got \"" + text + "\"");
  };
  const std::optional<TileShape> t = parse_tile_name(text);
  if (!t || t->rows > largest || t->cols > largest) return fail();
  return *t;
}

// ", sliding window (512, 0)" in FlashAttention's window_size terms, or nothing.
std::string window_text(Window w) {
  if (!w.any()) return "";
  return ", sliding window (" + std::to_string(w.left) + ", " + std::to_string(w.right) + ")";
}

void print_scenario_header(const Scenario& s, TileShape tile) {
  const auto [shortest, longest] = std::minmax_element(s.doc_lengths.begin(), s.doc_lengths.end());
  std::printf("scenario     %s  (%s)\n", s.name.c_str(), printable(s.source.string(), 4096).c_str());
  std::printf("why          %s\n", s.why.c_str());
  std::printf("documents    %zu, %d to %d tokens, %lld tokens in all (source: %s)\n", s.doc_lengths.size(), *shortest,
              *longest, static_cast<long long>(s.total_tokens()), length_source_name(s.length_source));
  std::printf("attention    %d heads (%d KV heads), head dim %d, %s, %s%s\n", s.heads, s.kv_heads, s.head_dim,
              dtype_name(s.dtype), s.causal ? "causal" : "not causal", window_text(s.window).c_str());
  std::printf(
      "layouts      padded to %d (%s); packed rows of %d (%s); flash tile %s; naive: one %dx%d tile per row\n\n",
      s.padded_length(), s.pad_to ? "fixed" : "longest", s.row_len, packing_policy_name(s.packing),
      tile_name(tile).c_str(), s.padded_length(), s.padded_length());
}

void print_model_table(const CostModel& m, const BackwardModel& bwd) {
  std::vector<std::string> header{"forward pass, all heads"};
  for (const ImplementationCost& c : m.costs) header.push_back(implementation_name(c.implementation));
  TextTable table(header);
  const auto row = [&](const std::string& label, auto cell) {
    std::vector<std::string> cells{label};
    for (const ImplementationCost& c : m.costs) cells.push_back(cell(c));
    table.add_row(cells);
  };
  using C = const ImplementationCost&;
  row("layout", [](C c) { return std::string(layout_kind_name(c.layout)); });
  row("tile", [](C c) { return tile_name(c.tile); });
  row("buffer tokens", [](C c) { return std::to_string(c.buffer_tokens); });
  row("scores computed", [](C c) { return format_count(double(c.scores_computed())); });
  for (CellKind kind : computed_cell_kinds) {
    // A kind of waste no implementation has here (a window in a scenario without one) gets no row.
    const bool any = std::any_of(m.costs.begin(), m.costs.end(), [kind](C c) { return c.scores[kind] > 0; });
    if (kind != CellKind::useful && !any) continue;
    row(std::string(kind == CellKind::useful ? "  " : "  wasted: ") + cell_kind_name(kind),
        [kind](C c) { return format_count(double(c.scores[kind])); });
  }
  row("useful lost to row cuts", [](C c) { return format_count(double(c.useful_lost)); });
  row("useful share of computed",
      [](C c) { return printf_string("%.1f%%", 100.0 * double(c.scores_useful()) / double(c.scores_computed())); });
  row("scores attended (useful+bleed)", [](C c) { return format_count(double(c.scores_attended())); });
  row("FLOPs fwd", [](C c) { return format_count(double(c.flops_fwd)); });
  row("FLOPs fwd, useful", [](C c) { return format_count(double(c.flops_useful_fwd)); });
  row("HBM bytes (model)", [](C c) { return format_bytes(double(c.hbm.total())); });
  row("extra memory", [](C c) { return format_bytes(double(c.extra_memory_bytes)); });
  // The backward pass (core/cost/README.md, "Backward"), dQ summed by fp32 atomics.
  const auto b = [&](C c) -> const BackwardCost& { return bwd[static_cast<int>(c.implementation)]; };
  row("bwd: matrix products per score", [&](C c) { return std::to_string(b(c).gemms); });
  row("bwd: scores recomputed", [&](C c) { return format_count(double(b(c).scores_recomputed)); });
  row("bwd: FLOPs", [&](C c) { return format_count(double(b(c).flops)); });
  row("bwd: FLOPs / fwd FLOPs", [&](C c) { return format_ratio(b(c).flops_vs_forward); });
  row("bwd: FLOPs, useful (10*D per useful)", [&](C c) { return format_count(double(b(c).flops_useful)); });
  row("bwd: HBM bytes (model)", [&](C c) { return format_bytes(double(b(c).hbm.total())); });
  row("bwd: workspace", [&](C c) { return format_bytes(double(b(c).workspace_bytes)); });
  row("bwd: extra memory (fwd kept + workspace)", [&](C c) { return format_bytes(double(b(c).extra_memory_bytes)); });
  row("scores computed / varlen", [](C c) { return format_ratio(c.computed_vs_varlen); });
  row("scores attended / varlen", [](C c) { return format_ratio(c.attended_vs_varlen); });
  row("HBM bytes / varlen", [](C c) { return format_ratio(c.hbm_vs_varlen); });
  std::fputs(table.render().c_str(), stdout);
}

// The article's headline, for each implementation that is not varlen; and what the
// backward keeps in memory, naive against varlen.
void print_callouts(const CostModel& m, const BackwardModel& bwd) {
  std::printf("\n");
  for (Implementation i : {Implementation::packed, Implementation::padded, Implementation::naive}) {
    const ImplementationCost& c = m[i];
    std::printf(
        "%s computes %.2fx the scores of varlen (%s tiles); its mask lets through %.2fx (useful + bleed, cell by cell)",
        implementation_name(i), c.computed_vs_varlen, tile_name(c.tile).c_str(), c.attended_vs_varlen);
    if (c.useful_lost > 0)
      std::printf("; it never computes %.1f%% of the useful scores (documents cut at row ends)",
                  100.0 * double(c.useful_lost) / double(m[Implementation::varlen].scores_useful()));
    std::printf("\n");
  }
  const BackwardCost &naive = bwd[static_cast<int>(Implementation::naive)],
                     &varlen = bwd[static_cast<int>(Implementation::varlen)];
  std::printf(
      "backward: naive keeps %s beyond the inputs, O and the gradients (S, P, dP, dS); varlen keeps %s (LSE, "
      "Delta, the dQ accumulator)\n",
      format_bytes(double(naive.extra_memory_bytes)).c_str(), format_bytes(double(varlen.extra_memory_bytes)).c_str());
}

void print_model_csv(const Scenario& s, const CostModel& m, const BackwardModel& bwd) {
  std::printf(
      "scenario,implementation,layout,tile,heads,kv_heads,head_dim,dtype,causal,window_left,window_right,buffer_tokens,"
      "tiles_visited,"
      "scores_computed,");
  for (CellKind kind : computed_cell_kinds) std::printf("scores_%s,", cell_kind_name(kind));
  std::printf(
      "scores_attended,scores_useful_lost,flops_fwd,flops_useful_fwd,flops_bwd,hbm_bytes_model,extra_memory_bytes,"
      "computed_vs_varlen,attended_vs_varlen,hbm_vs_varlen,"
      "dq_accumulation,gemms_bwd,scores_recomputed_bwd,flops_useful_bwd,hbm_bytes_model_bwd,workspace_bytes_bwd,"
      "extra_memory_bytes_bwd\n");
  for (const ImplementationCost& c : m.costs) {
    const BackwardCost& b = bwd[static_cast<int>(c.implementation)];
    std::printf("%s,%s,%s,%s,%d,%d,%d,%s,%s,%d,%d,%lld,%lld,%lld,", csv_cell(s.name, "scenario").c_str(),
                implementation_name(c.implementation), layout_kind_name(c.layout), tile_name(c.tile).c_str(), s.heads,
                s.kv_heads, s.head_dim, dtype_name(s.dtype), s.causal ? "true" : "false", s.window.left, s.window.right,
                static_cast<long long>(c.buffer_tokens), static_cast<long long>(c.tiles_visited),
                static_cast<long long>(c.scores_computed()));
    for (CellKind kind : computed_cell_kinds) std::printf("%lld,", static_cast<long long>(c.scores[kind]));
    std::printf("%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f,", static_cast<long long>(c.scores_attended()),
                static_cast<long long>(c.useful_lost), static_cast<long long>(c.flops_fwd),
                static_cast<long long>(c.flops_useful_fwd), static_cast<long long>(b.flops),
                static_cast<long long>(c.hbm.total()), static_cast<long long>(c.extra_memory_bytes),
                c.computed_vs_varlen, c.attended_vs_varlen, c.hbm_vs_varlen);
    std::printf("%s,%d,%lld,%lld,%lld,%lld,%lld\n",
                materializes_scores(c.implementation) ? "" : dq_accumulation_name(b.dq_accumulation), b.gemms,
                static_cast<long long>(b.scores_recomputed), static_cast<long long>(b.flops_useful),
                static_cast<long long>(b.hbm.total()), static_cast<long long>(b.workspace_bytes),
                static_cast<long long>(b.extra_memory_bytes));
  }
}

std::string median_of(const std::optional<MeasuredRun>& run) {
  return run ? format_us(*run->primary.row->median_us) : "-";
}

// One line per pass and implementation measured in the scenario's own shape: our fastest
// run, the fastest peer's, and their ratio.
void print_measured_summary(const LoadedResults& results, const Scenario& s) {
  const std::vector<SummaryLine> lines = measured_summary(results, own_configuration(s));
  if (lines.empty()) return;
  TextTable table({"measured", "pass", "ours", "kernel", "file", "best peer", "source", "peer / ours"}, 2);
  for (const SummaryLine& l : lines) {
    const auto& ours = l.ours;
    const auto& peer = l.best_peer;
    const std::optional<double> ratio = l.peer_over_ours();
    table.add_row({implementation_name(l.implementation), pass_name(l.pass), median_of(ours),
                   ours && !ours->primary.row->kernel.empty() ? ours->primary.row->kernel : "-",
                   ours ? file_name(ours->primary) : "-", median_of(peer), peer ? peer->primary.row->source : "-",
                   ratio ? format_ratio(*ratio) : "-"});
  }
  std::printf("\nmeasured, %s, head dim %d, %d heads: primary runs (--all-runs lists every row) in %s\n",
              dtype_name(s.dtype), s.head_dim, s.heads, printable(default_results_folder().string(), 4096).c_str());
  std::fputs(table.render().c_str(), stdout);
  std::printf("peer / ours above 1x: ours is faster. Ours: the fastest of our flash kernels' primary runs.\n");
}

// Every measured row of the scenario, in any shape, file by file.
void print_all_runs(const LoadedResults& results, const Scenario& s) {
  const auto number = [](const auto& v, const char* format) { return v ? printf_string(format, double(*v)) : "-"; };
  TextTable table({"measured", "source", "kernel", "file", "gpu", "pass", "dtype", "head dim", "median µs", "min µs",
                   "max µs", "useful TFLOP/s", "scores computed", "rel L2 error"},
                  7);
  for (const ResultsFile& file : results.files)
    for (const ResultRow& r : file.rows)
      if (r.scenario == s.name)
        table.add_row({r.implementation, r.source, r.kernel.empty() ? "-" : r.kernel, shown_file_name(file.path), r.gpu,
                       pass_name(r.pass), dtype_name(r.dtype), std::to_string(r.head_dim), number(r.median_us, "%.1f"),
                       number(r.min_us, "%.1f"), number(r.max_us, "%.1f"), number(r.useful_tflops, "%.1f"),
                       r.scores_computed ? format_count(double(*r.scores_computed)) : "-",
                       number(r.rel_l2_error, "%.1e")});
  std::printf("\nevery measured row (%s)\n", printable(default_results_folder().string(), 4096).c_str());
  std::fputs(table.render().c_str(), stdout);
}

}  // namespace

// `attnlab model [SCENARIO] [--format table|csv|json] [--tile BrxBc] [--ceilings FILE] [--all-runs]`: the cost
// model of the four implementations (formulas: core/cost/README.md); json: the resolved scenario for scripts.
void add_model_command(CLI::App& app) {
  auto options = std::make_shared<ModelOptions>();
  CLI::App* model = app.add_subcommand("model", "Print the cost model of the four implementations for a scenario");
  model->add_option("scenario", options->scenario, "Scenario name (see `attnlab list`) or path to a .toml file")
      ->capture_default_str();
  model
      ->add_option("--format", options->format,
                   "Output format: table, csv (one row per implementation) or json (the resolved scenario: "
                   "documents, packed rows, useful scores, results columns)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  model->add_option("--tile", options->tile, "Flash tile shape BrxBc (query rows x key columns)")
      ->capture_default_str();
  model->add_option("--ceilings", options->ceilings,
                    "JSON format: a ceilings.toml ([gemm_bf16] tflops, [copy] tbps) for the scenario's floor");
  model->add_flag("--all-runs", options->all_runs,
                  "Table format: list every measured row of the scenario, not only the summary of primary runs");
  model->callback([options] {
    if (!options->ceilings.empty() && options->format != "json")
      throw InputError("--ceilings: only with --format json (the floor is a field of the JSON)");
    const TileShape tile = parse_tile(options->tile);
    const std::optional<Ceilings> ceilings =
        options->ceilings.empty() ? std::nullopt : std::optional(read_ceilings(options->ceilings));
    const Scenario scenario = load_scenario(options->scenario);
    const ScenarioLayouts layouts(scenario);
    const CostModel m = model_costs(scenario, layouts, tile);
    const BackwardModel bwd = model_backward_costs(scenario, m, layouts);
    if (options->format == "csv") {
      print_model_csv(scenario, m, bwd);
      return;
    }
    if (options->format == "json") {
      print_model_json(scenario, layouts.packed, m, ceilings);
      return;
    }
    print_scenario_header(scenario, tile);
    print_model_table(m, bwd);
    print_callouts(m, bwd);
    const LoadedResults results = load_measured_results();
    print_measured_summary(results, scenario);
    if (options->all_runs) print_all_runs(results, scenario);
  });
}

}  // namespace attnlab::cli
