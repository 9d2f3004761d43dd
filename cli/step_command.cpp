#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analysis/number_format.hpp"
#include "analysis/step_chain.hpp"
#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "cli/results_folder.hpp"
#include "cli/step_all_reduce.hpp"
#include "cli/table.hpp"
#include "core/io/input_error.hpp"
#include "core/io/shortest_number.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario_file.hpp"

namespace attnlab::cli {

namespace {

struct StepOptions {
  std::string scenario = "nanochat-d24";
  std::string format = "table";
  bool details = false;
};

// Where the default output's paragraphs wrap: no line of it is wider than 120 columns.
constexpr std::size_t paragraph_columns = 120;

std::string flops(double x) { return format_count(x); }

void print_header(const Scenario& s, const TrainingStep& step) {
  const ModelShape& m = step.model;
  const std::int64_t lm_head = std::int64_t(m.width) * m.vocab;
  std::printf("scenario     %s  (%s)\n", s.name.c_str(), printable(s.source.string(), 4096).c_str());
  std::printf("why          %s\n", s.why.c_str());
  std::printf("batch        %zu documents, %lld tokens; packed rows of %d (%s), varlen documents\n",
              s.doc_lengths.size(), static_cast<long long>(step.tokens), s.row_len, packing_policy_name(s.packing));
  std::printf(
      "model        %d layers (%d short-window of %d keys, %d long; pattern %s, the last layer long), width %d,\n"
      "             %d heads (%d KV heads) of %d, MLP %dx, vocabulary %d, sequence %d\n",
      m.layers, step.layers[int(LayerKind::short_window)], m.short_window, step.layers[int(LayerKind::long_context)],
      m.window_pattern.c_str(), m.width, m.heads, m.kv_heads, m.head_dim, m.mlp_ratio, m.vocab, m.seq_len);
  std::printf("matrix       %lld parameters: blocks %lld (Q, K, V, output, MLP) + LM head %lld; embedding left out\n",
              static_cast<long long>(step.matrix_params), static_cast<long long>(step.matrix_params - lm_head),
              static_cast<long long>(lm_head));
  const double attention = step.nanochat_flops_per_token - 6.0 * double(step.matrix_params);
  std::printf("nanochat     estimate_flops = 6 x %lld + %.0f = %.0f FLOP per token (%.4f G); attention %s of it\n\n",
              static_cast<long long>(step.matrix_params), attention, step.nanochat_flops_per_token,
              step.nanochat_flops_per_token / 1e9, format_percent(attention / step.nanochat_flops_per_token).c_str());
}

void print_step_table(const TrainingStep& step) {
  std::vector<std::string> header{"FLOPs per token"};
  for (const StepCost& c : step.costs) header.push_back(implementation_name(c.implementation));
  TextTable table(header);
  const auto row = [&](const std::string& label, auto cell) {
    std::vector<std::string> cells{label};
    for (const StepCost& c : step.costs) cells.push_back(cell(c));
    table.add_row(cells);
  };
  using C = const StepCost&;
  row("matrix products fwd (2 per parameter)", [](C c) { return flops(c.matrix.fwd); });
  row("matrix products bwd (2x fwd)", [](C c) { return flops(c.matrix.bwd); });
  for (LayerKind k : all_layer_kinds) {
    const std::string kind = std::string("one ") + layer_kind_name(k) + " layer";
    row(kind + " fwd, full squares", [k](C c) { return flops(c.full_squares_per_layer[int(k)].fwd); });
    row(kind + " fwd, computed", [k](C c) { return flops(c.computed_per_layer[int(k)].fwd); });
    row(kind + " bwd, computed", [k](C c) { return flops(c.computed_per_layer[int(k)].bwd); });
  }
  row("attention, all layers, full squares", [](C c) { return flops(c.attention_full_squares.step()); });
  row("attention, all layers, computed", [](C c) { return flops(c.attention_computed.step()); });
  row("step, full squares", [](C c) { return flops(c.step_full_squares()); });
  row("step, computed", [](C c) { return flops(c.step_computed()); });
  row("attention share, full squares", [](C c) { return format_percent(c.attention_share_full_squares()); });
  row("attention share, computed", [](C c) { return format_percent(c.attention_share_computed()); });
  std::fputs(table.render().c_str(), stdout);
  std::printf(
      "Full squares: nanochat's count, every position of a row of E sees min(window, E) keys, backward 2x forward.\n"
      "Computed: our cost model, causal, %dx%d tiles, each layer at its window; backward from the backward\n"
      "model (flash: 5 products per score, 2.5x forward; naive keeps P: 4, 2x).\n",
      step.tile.rows, step.tile.cols);
}

void print_article_counts(const Scenario& s) {
  std::printf("\nThe article's counts (scores per head)\n");
  TextTable table({"count", "rows", "documents", "rows / documents"});
  const ArticleCounts at_rows = article_counts(s.doc_lengths, s.row_len);
  const ArticleCounts at_4096 = article_counts(s.doc_lengths, 4096);
  table.add_row({"the article's: rows full, documents half squares",
                 article_millions(double(at_rows.rows_full_squares)),
                 article_millions(double(at_rows.docs_full_squares) / 2), format_ratio(at_rows.article_ratio())});
  table.add_row({printf_string("the same counting, rows of %d", s.row_len),
                 article_millions(double(at_rows.rows_full_squares)),
                 article_millions(double(at_rows.docs_full_squares)), format_ratio(at_rows.same_counting_ratio())});
  table.add_row({"the same counting, rows of 4096 (uniform-64x512)",
                 article_millions(double(at_4096.rows_full_squares)),
                 article_millions(double(at_4096.docs_full_squares)), format_ratio(at_4096.same_counting_ratio())});
  std::fputs(table.render().c_str(), stdout);
  std::printf(
      "The article set its rows as full squares against its documents as half squares (\"64 x 256K = 8M\";\n"
      "64 x 256K is 16M, 64 x 512^2 / 2 is 8M). Counted alike, rows of 2048 hold 4x the documents' scores;\n"
      "8x needs rows of 4096.\n");
}

void print_time_table(const StepTimePrediction& t) {
  std::printf("\n%s: attention measured (shipped results, median, scaled to the model's heads), %s\n",
              kernel_family_name(t.family), t.gemm_pricing().c_str());
  TextTable table({"us per batch", "pass", "measured run standing in: packed; varlen", "packed", "varlen"}, 3);
  const auto cell = [](const std::optional<MeasuredAttention>& m) {
    return m ? printf_string("%.0f", m->us) : std::string("not measured");
  };
  const auto run = [](const std::optional<MeasuredAttention>& m) {
    return m ? printf_string("%s/%s (%s, %d heads)", m->scenario.c_str(), implementation_name(m->implementation),
                             m->source.c_str(), m->measured_heads)
             : std::string("-");
  };
  for (LayerKind k : all_layer_kinds)
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      const auto& p = t.packed.layer[int(k)][int(pass)];
      const auto& v = t.varlen.layer[int(k)][int(pass)];
      table.add_row({std::string("one ") + layer_kind_name(k) + " layer", pass_name(pass), run(p) + "; " + run(v),
                     cell(p), cell(v)});
    }
  for (Pass pass : {Pass::fwd, Pass::bwd})
    table.add_row({"matrix products, all layers", pass_name(pass),
                   t.gemms ? "the GEMMs at the model's shapes" : "FLOPs / the GEMM ceiling",
                   printf_string("%.0f", (*t.packed.gemm_us)[int(pass)]),
                   printf_string("%.0f", (*t.varlen.gemm_us)[int(pass)])});
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    const auto p = t.packed.step_us(pass, t.layers), v = t.varlen.step_us(pass, t.layers);
    table.add_row({"step", pass_name(pass), "matrix products + attention",
                   p ? printf_string("%.0f", *p) : "not measured", v ? printf_string("%.0f", *v) : "not measured"});
  }
  std::fputs(table.render().c_str(), stdout);
}

void print_savings(const TrainingStep& step, const LoadedResults& results,
                   const std::array<StepTimePrediction, 2>& times) {
  const std::optional<Ceilings>& ceiling = results.ceilings;
  const StepTimePrediction& any = times.front();  // every family prices its GEMMs alike
  std::printf("\nPredicted saving of the step, packed rows -> varlen\n");
  std::printf("(a) from FLOPs: %s (nanochat's full squares), %s (computed: causal, tiled)\n",
              format_percent(step.saving_full_squares()).c_str(), format_percent(step.saving_computed()).c_str());
  if (!any.gemms && !ceiling) {
    std::printf("(b) from time: not measured (no GEMM time in the results folder)\n");
  } else {
    if (any.gemms)
      std::printf("(b) from time, %s (scenario %s)\n", any.gemm_pricing().c_str(), any.gemms->scenario.c_str());
    else
      std::printf("(b) from time, %s: %s, %s, %s (%s says where it was measured)\n", any.gemm_pricing().c_str(),
                  ceiling->gemm.what.c_str(), ceiling->gemm.gpu.c_str(), ceiling->gemm.date.c_str(),
                  printable(results.ceilings_file.string(), 4096).c_str());
    for (const StepTimePrediction& t : times) {
      const auto fwd = t.saving_fwd(), whole = t.saving_step();
      std::printf("    %-8s forward alone %s; whole step (forward and backward) %s\n", kernel_family_name(t.family),
                  fwd ? format_percent(*fwd).c_str() : "not measured",
                  whole ? format_percent(*whole).c_str() : "not measured");
    }
  }
  std::printf("the article: %s (a whole nanochat d24 training run)\n", format_percent(article_step_saving).c_str());
}

// Each measured pair's step part by part, packed against varlen.
void print_measured_steps(const std::vector<MeasuredStepPair>& measured) {
  for (const MeasuredStepPair& p : measured) {
    if (!p.has_parts()) continue;
    std::printf("\nThe measured step, %s (%s): us per step\n", p.setting().c_str(), p.packed->file.c_str());
    TextTable table({"part", "packed", "varlen", "packed - varlen"}, 1);
    for (const StepTableLine& line : step_table_lines(p))
      if (line.packed && line.varlen)
        table.add_row(
            {line.label, format_us(*line.packed), format_us(*line.varlen), format_us(*line.packed - *line.varlen)});
    std::fputs(table.render().c_str(), stdout);
  }
}

// Two lines: the batch, both layouts, and the model.
void print_summary_header(const Scenario& s, const TrainingStep& step) {
  const ModelShape& m = step.model;
  std::printf("%s: %s documents, %s tokens; packed rows of %d against varlen documents\n", s.name.c_str(),
              format_integer(static_cast<long long>(s.doc_lengths.size())).c_str(), format_integer(step.tokens).c_str(),
              s.row_len);
  std::printf("model: %d layers (%d short-window of %d keys, %d long), width %d, %d heads of %d; --details for more\n",
              m.layers, step.layers[int(LayerKind::short_window)], m.short_window,
              step.layers[int(LayerKind::long_context)], m.width, m.heads, m.head_dim);
}

// The chain's links, each with what its number rests on; the steps on the way are --details', and each
// measured setting's saving is its row of the measured table below.
void print_chain_summary(const std::vector<ChainLink>& chain) {
  TextTable table({"the chain, from scores to step time", "ours", "evidence", "source"}, 1);
  for (const ChainLink& link : chain) {
    if (link.detail || link.setting_saving) continue;
    if (link.number)
      table.add_row({link.label, link.value, link_evidence_name(link.evidence), link.source});
    else  // "not measured" says it in the evidence column, keeping the numbers' column narrow
      table.add_row({link.label, "-", link.value, link.source});
  }
  std::fputs(table.render().c_str(), stdout);
}

// "319.9 (313.5-325.8)": a step's median and spread in ms.
std::string step_ms(const std::optional<MeasuredStepRun>& run) {
  if (!run) return "not measured";
  const StepRow& r = run->row;
  std::string text = ms_figure(r.median_us);
  if (r.min_us && r.max_us) text += " (" + ms_figure(*r.min_us) + "-" + ms_figure(*r.max_us) + ")";
  return text;
}

// "the measured step on H200": the card the rows ran on. A step is measured on one GPU model, and
// results of another card's folder (ATTNLAB_RESULTS) must say so where their numbers are.
std::string measured_heading(const std::vector<MeasuredStepPair>& measured) {
  std::vector<std::string> gpus;
  for (const MeasuredStepPair& p : measured)
    for (Implementation layout : {Implementation::packed, Implementation::varlen})
      if (const auto& run = p.run(layout);
          run && !run->row.gpu.empty() && std::find(gpus.begin(), gpus.end(), run->row.gpu) == gpus.end())
        gpus.push_back(run->row.gpu);
  std::string heading = "the measured step";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::string_view gpu = gpus[i];
    if (gpu.starts_with("NVIDIA ")) gpu.remove_prefix(7);  // the vendor says nothing beside "H100"
    heading += (i ? " and " : " on ") + printable(gpu, 64);
  }
  return heading;
}

// --details: each measured pair on its own line, with the steps' spread and attention's share of
// packed's step.
void print_measured_pairs(const std::vector<MeasuredStepPair>& measured) {
  if (measured.empty()) return;
  std::printf("\n");
  TextTable table({measured_heading(measured) + ", ms (median, min-max)", "packed", "varlen", "saved", "attn. share"},
                  1);
  for (const MeasuredStepPair& p : measured) {
    const auto saving = p.saving();
    const auto attention = p.packed ? step_attention_us(p.packed->row) : std::nullopt;
    table.add_row({p.setting(), step_ms(p.packed), step_ms(p.varlen), saving ? format_percent(*saving) : "-",
                   attention ? format_percent(*attention / p.packed->row.median_us) : "not profiled"});
  }
  std::fputs(table.render().c_str(), stdout);
}

// "365.2 -> 353.0  3.35%": a pair's packed and varlen medians in ms and what varlen saved.
std::string pair_ms(const MeasuredStepPair* p) {
  if (!p) return "-";
  const auto ms = [](const std::optional<MeasuredStepRun>& run) {
    return run ? ms_figure(run->row.median_us) : std::string("-");
  };
  const auto saving = p->saving();
  return ms(p->packed) + " -> " + ms(p->varlen) + "  " + (saving ? format_percent(*saving) : std::string("-"));
}

// The measured settings at a glance: one line per GPU count, optimizer and gradient sync, one column
// per attention backend; then, where several GPUs ran, the article's 8 GPUs on paper. The spread,
// attention's share and each multi-GPU row's exposed communication are --details'.
void print_measured_summary(const std::vector<MeasuredStepPair>& measured, const TrainingStep& step,
                            const std::optional<AllReduceEstimate>& all_reduce) {
  std::printf("\n");
  if (measured.empty()) {
    std::printf("The measured step: no step row in the results measured these %s tokens under this [model].\n",
                format_integer(step.tokens).c_str());
    return;
  }
  std::vector<std::string> backends;  // in the pairs' order: FA2, attnlab, cuDNN
  // Each line's pairs, the lines by GPUs, optimizer and gradient sync.
  std::map<std::tuple<int, StepOptimizer, std::optional<GradientSync>>, std::vector<const MeasuredStepPair*>> lines;
  for (const MeasuredStepPair& p : measured) {
    if (std::find(backends.begin(), backends.end(), p.label()) == backends.end()) backends.push_back(p.label());
    lines[{p.gpus, p.optimizer, p.gradient_sync}].push_back(&p);
  }
  std::printf("%s, ms (median): packed -> varlen, and what varlen saved\n", measured_heading(measured).c_str());
  std::vector<std::string> header = {"setting"};
  header.insert(header.end(), backends.begin(), backends.end());
  TextTable table(header, 1);
  for (const auto& line : lines) {
    const std::vector<const MeasuredStepPair*>& pairs = line.second;
    std::vector<std::string> cells = {pairs.front()->conditions()};
    for (const std::string& backend : backends) {
      const auto pair =
          std::find_if(pairs.begin(), pairs.end(), [&](const MeasuredStepPair* p) { return p->label() == backend; });
      cells.push_back(pair_ms(pair == pairs.end() ? nullptr : *pair));
    }
    table.add_row(cells);
  }
  std::fputs(table.render().c_str(), stdout);
  if (all_reduce) print_all_reduce_summary(*all_reduce, paragraph_columns);
}

void print_chain(const std::vector<ChainLink>& chain, const std::vector<std::string>& explanation) {
  std::printf("\nThe chain, from scores to step time\n");
  TextTable table({"link", "ours", "how"}, 3);
  for (const ChainLink& link : chain) table.add_row({link.label, link.value, link.how});
  std::fputs(table.render().c_str(), stdout);
  for (const std::string& paragraph : explanation) std::printf("\n%s\n", paragraph.c_str());
}

void print_step_csv(const Scenario& s, const TrainingStep& step) {
  std::printf(
      "scenario,implementation,tokens,matrix_params,tile,matrix_fwd,matrix_bwd,"
      "short_full_fwd,short_computed_fwd,short_computed_bwd,long_full_fwd,long_computed_fwd,long_computed_bwd,"
      "attention_full,attention_computed,step_full,step_computed,attention_share_full,attention_share_computed,"
      "nanochat_flops_per_token\n");
  for (const StepCost& c : step.costs) {
    const auto& sh = c.full_squares_per_layer[int(LayerKind::short_window)];
    const auto& lo = c.full_squares_per_layer[int(LayerKind::long_context)];
    const auto& shc = c.computed_per_layer[int(LayerKind::short_window)];
    const auto& loc = c.computed_per_layer[int(LayerKind::long_context)];
    std::printf(
        "%s,%s,%lld,%lld,%dx%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.6f,%.6f,%."
        "17g\n",
        csv_cell(s.name, "scenario").c_str(), implementation_name(c.implementation),
        static_cast<long long>(step.tokens), static_cast<long long>(step.matrix_params), step.tile.rows, step.tile.cols,
        c.matrix.fwd, c.matrix.bwd, sh.fwd, shc.fwd, shc.bwd, lo.fwd, loc.fwd, loc.bwd, c.attention_full_squares.step(),
        c.attention_computed.step(), c.step_full_squares(), c.step_computed(), c.attention_share_full_squares(),
        c.attention_share_computed(), step.nanochat_flops_per_token);
  }
}

// The chain and the measured steps as data: what the table shows, for a script or a notebook.
void print_step_json(const Scenario& s, const TrainingStep& step, const std::vector<ChainLink>& chain,
                     const std::vector<MeasuredStepPair>& measured, const std::optional<AllReduceEstimate>& all_reduce,
                     const std::optional<std::string>& distance) {
  const auto number = [](std::optional<double> x) { return x ? shortest_text(*x) : std::string("null"); };
  const auto link = [&](const ChainLink& l) {
    return "{\"label\":" + json_string(l.label) + ",\"value\":" + json_string(l.value) +
           ",\"number\":" + number(l.number) + ",\"evidence\":" + json_string(link_evidence_name(l.evidence)) +
           ",\"source\":" + json_string(l.source) + ",\"how\":" + json_string(l.how) +
           ",\"detail\":" + (l.detail ? "true" : "false") + "}";
  };
  const auto run = [&](const std::optional<MeasuredStepRun>& r) -> std::string {
    if (!r) return "null";
    std::string parts = "{";
    for (StepPart part : all_step_parts)
      parts += std::string(parts.size() > 1 ? "," : "") + json_string(step_part_name(part)) + ":" +
               number(r->row.part_us(part));
    return "{\"file\":" + json_string(r->file) + ",\"median_us\":" + number(r->row.median_us) +
           ",\"min_us\":" + number(r->row.min_us) + ",\"max_us\":" + number(r->row.max_us) + ",\"parts_us\":" + parts +
           "},\"communication_exposed_us\":" + number(r->row.communication_exposed_us) + "}";
  };
  const auto pair = [&](const MeasuredStepPair& p) {
    return "{\"setting\":" + json_string(p.setting()) + ",\"source\":" + json_string(p.source) +
           ",\"kernel\":" + json_string(p.kernel) + ",\"gpus\":" + std::to_string(p.gpus) +
           ",\"optimizer\":" + json_string(step_optimizer_name(p.optimizer)) +
           ",\"gradient_sync\":" + (p.gradient_sync ? json_string(gradient_sync_name(*p.gradient_sync)) : "null") +
           ",\"saving\":" + number(p.saving()) + ",\"packed\":" + run(p.packed) + ",\"varlen\":" + run(p.varlen) + "}";
  };
  std::printf("{\"scenario\":%s,\"tokens\":%lld,\"chain\":%s,\"measured\":%s,\"all_reduce\":%s,\"distance\":%s}\n",
              json_string(s.name).c_str(), static_cast<long long>(step.tokens), json_array(chain, link).c_str(),
              json_array(measured, pair).c_str(), all_reduce_json(all_reduce).c_str(),
              distance ? json_string(*distance).c_str() : "null");
}

// The loaded runs to match the layers against, by the cells they computed (analysis/same_cells.hpp).
MeasuredRuns shipped_runs(const LoadedResults& results) {
  MeasuredRuns runs;
  for (const ResultsFile& file : results.files) runs.rows.insert(runs.rows.end(), file.rows.begin(), file.rows.end());
  return runs;
}

}  // namespace

// `attnlab step [SCENARIO] [--details] [--format table|csv|json]`: the training step of the
// scenario's [model] over its batch, and what replacing packed rows by varlen saves (README.md,
// "From scores to step time"): by default the chain's links and the measured steps in at most
// 120 columns; --details adds every input and part.
void add_step_command(CLI::App& app) {
  auto options = std::make_shared<StepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "step", "Print the training-step FLOPs and the step saving of varlen for a scenario with a [model]");
  cmd->add_option("scenario", options->scenario,
                  "Scenario name (see `attnlab list`) or path to a .toml file with a [model] table")
      ->capture_default_str();
  cmd->add_option("--format", options->format,
                  "Output format: table (the chain and the measured steps), csv (the FLOPs per implementation) or "
                  "json (the chain's links, the measured steps and the all-reduce of several GPUs)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->add_flag("--details", options->details,
                "With the table: the FLOPs, the article's counts, each prediction's inputs, every link, each "
                "measured step part by part and the all-reduce of several GPUs, measured and on paper for 8");
  cmd->callback([options] {
    const Scenario s = load_scenario(options->scenario);
    if (!s.model)
      throw InputError(s.source.string() +
                       ": model: missing; `attnlab step` needs a [model] table (see scenarios/nanochat-d24.toml)");
    const TrainingStep step = model_training_step(s, *s.model);
    if (options->format == "csv") {
      print_step_csv(s, step);
      return;
    }
    const LoadedResults results = load_measured_results();
    const std::optional<Ceilings>& ceiling = results.ceilings;
    const MeasuredRuns runs = shipped_runs(results);
    const std::optional<MeasuredGemms> gemms = gemms_for_step(s, step, results.gemms);
    std::array<StepTimePrediction, 2> times;
    for (KernelFamily f : all_kernel_families)
      times[int(f)] = predict_step_time(s, step, f, ceiling ? std::optional(ceiling->tflops) : std::nullopt, gemms,
                                        runs, {}, ceiling ? std::optional(ceiling->tbps) : std::nullopt);
    const std::vector<MeasuredStepPair> measured = measured_step_pairs(s, step, results);
    const std::vector<ChainLink> chain = step_chain(s, step, times, measured);
    const std::optional<AllReduceEstimate> all_reduce = all_reduce_estimate(step.model, measured);
    if (options->format == "json") {
      print_step_json(s, step, chain, measured, all_reduce, article_distance(s, measured));
      return;
    }
    if (!options->details) {
      print_summary_header(s, step);
      print_chain_summary(chain);
      print_measured_summary(measured, step, all_reduce);
      if (const auto distance = article_distance(s, measured))
        std::printf("\n%s", wrapped(*distance, paragraph_columns).c_str());
      return;
    }
    print_header(s, step);
    print_step_table(step);
    print_article_counts(s);
    if (ceiling || gemms)
      for (const StepTimePrediction& t : times) print_time_table(t);
    print_savings(step, results, times);
    print_measured_pairs(measured);
    print_measured_steps(measured);
    if (all_reduce) print_all_reduce_table(*all_reduce, step.model, paragraph_columns);
    print_chain(chain, step_explanation(s, times, measured));
  });
}

}  // namespace attnlab::cli
