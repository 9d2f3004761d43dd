#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "cli/table.hpp"
#include "core/context_parallel.hpp"
#include "core/input_error.hpp"
#include "core/results_csv.hpp"
#include "core/scenario_file.hpp"
#include "core/tile_name.hpp"
#include "kernels/kernel_choice.hpp"

namespace attnlab::cli {

namespace {

struct CpOptions {
  std::string scenario = default_scenario_name;
  std::string ranks;
  std::string strategy = "all";
  std::string format = "table";
  std::string kernel;  // empty: the cost model's default tile
};

int parse_ranks(const std::string& text) {
  int ranks = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), ranks);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || ranks < 1 || ranks > max_cp_ranks)
    throw InputError("--ranks: expected the context-parallel size, an integer from 1 to " +
                     std::to_string(max_cp_ranks) + ", got \"" + text + "\"");
  return ranks;
}

std::vector<CpStrategy> parse_strategies(const std::string& text) {
  if (text == "all") return {all_cp_strategies.begin(), all_cp_strategies.end()};
  if (const auto strategy = parse_cp_strategy(text)) return {*strategy};
  throw InputError("--strategy: expected contiguous, zigzag, documents or all, got \"" + text + "\"");
}

// The rule of each strategy in one line (core/README.md, "Context parallelism").
std::string strategy_rule(CpStrategy strategy, int ranks) {
  switch (strategy) {
    case CpStrategy::contiguous: return printf_string("each document cut into %d pieces, piece i on rank i", ranks);
    case CpStrategy::zigzag:
      return printf_string("each document cut into %d chunks, rank i holding chunks i and %d - i", 2 * ranks,
                           2 * ranks - 1);
    case CpStrategy::documents:
      return "whole documents, most useful scores first, each onto the rank with the least work so far";
  }
  return "";
}

void print_header(const Scenario& s, int ranks, const CpCost& any, const std::string& kernel) {
  std::printf("scenario     %s  (%s)\n", s.name.c_str(), s.source.string().c_str());
  std::printf("documents    %zu, %lld tokens in all\n", s.doc_lengths.size(), static_cast<long long>(s.total_tokens()));
  std::printf("attention    %d heads (%d KV heads), head dim %d, %s, %s", s.heads, s.kv_heads, s.head_dim,
              dtype_name(s.dtype), s.causal ? "causal" : "not causal");
  if (s.window.any()) std::printf(", window (%d, %d)", s.window.left, s.window.right);
  std::printf("\ncontext      %d ranks, flash tile %s (%s), K and V of one token %s\n", ranks,
              tile_name(any.tile).c_str(), kernel.empty() ? "the cost model's default" : kernel.c_str(),
              format_bytes(double(any.kv_bytes_per_token)).c_str());
}

void print_strategy_table(const CpCost& c) {
  const int ranks = c.plan.ranks();
  std::printf("\n%s: %s\n", cp_strategy_name(c.plan.strategy), strategy_rule(c.plan.strategy, ranks).c_str());
  TextTable table({"rank", "pieces", "tokens", "useful scores", "scores computed", "useful / mean", "computed / mean",
                   "K/V in, ring", "K/V in, all-gather", "K/V needed"});
  for (int i = 0; i < ranks; ++i) {
    const CpRankCost& r = c.ranks[i];
    table.add_row({std::to_string(i), std::to_string(c.plan.pieces[i].size()), std::to_string(r.tokens),
                   format_count(double(r.scores_useful())), format_count(double(r.scores_computed())),
                   format_ratio(r.useful_vs_mean), format_ratio(r.computed_vs_mean),
                   format_bytes(double(r.kv_bytes_ring)), format_bytes(double(r.kv_bytes_all_gather)),
                   format_bytes(double(r.kv_bytes_needed))});
  }
  std::fputs(table.render().c_str(), stdout);
  std::printf("imbalance (max / mean) %s of useful scores, %s of scores computed; scores computed %s one GPU's\n",
              format_ratio(c.useful_imbalance).c_str(), format_ratio(c.computed_imbalance).c_str(),
              format_ratio(double(c.total_scores_computed()) / double(c.one_gpu_scores_computed)).c_str());
  std::printf("K/V received by all ranks: ring %s, all-gather %s, needed %s\n",
              format_bytes(double(c.total(&CpRankCost::kv_bytes_ring))).c_str(),
              format_bytes(double(c.total(&CpRankCost::kv_bytes_all_gather))).c_str(),
              format_bytes(double(c.total(&CpRankCost::kv_bytes_needed))).c_str());
}

void print_csv(const Scenario& s, const std::vector<CpCost>& costs) {
  std::printf("scenario,strategy,ranks,rank,tile,pieces,tokens,scores_computed,");
  for (CellKind kind : computed_cell_kinds) std::printf("scores_%s,", cell_kind_name(kind));
  std::printf("tiles_visited,kv_bytes_ring,kv_bytes_all_gather,kv_bytes_needed,useful_imbalance,computed_imbalance\n");
  for (const CpCost& c : costs)
    for (int i = 0; i < c.plan.ranks(); ++i) {
      const CpRankCost& r = c.ranks[i];
      std::printf("%s,%s,%d,%d,%s,%zu,%lld,%lld,", csv_cell(s.name, "scenario").c_str(),
                  cp_strategy_name(c.plan.strategy), c.plan.ranks(), i, tile_name(c.tile).c_str(),
                  c.plan.pieces[i].size(), static_cast<long long>(r.tokens),
                  static_cast<long long>(r.scores_computed()));
      for (CellKind kind : computed_cell_kinds) std::printf("%lld,", static_cast<long long>(r.scores[kind]));
      std::printf("%lld,%lld,%lld,%lld,%.6f,%.6f\n", static_cast<long long>(r.tiles_visited),
                  static_cast<long long>(r.kv_bytes_ring), static_cast<long long>(r.kv_bytes_all_gather),
                  static_cast<long long>(r.kv_bytes_needed), c.useful_imbalance, c.computed_imbalance);
    }
}

// One object: the scenario's shape and, per strategy, the summary and each rank's
// pieces, [doc, first, end], for a script that runs the ranks.
void print_json(const Scenario& s, const std::vector<CpCost>& costs) {
  const auto piece = [](const CpPiece& p) {
    return "[" + std::to_string(p.doc) + "," + std::to_string(p.first) + "," + std::to_string(p.end) + "]";
  };
  const auto strategy = [&](const CpCost& c) {
    std::vector<std::string> ranks;
    for (int i = 0; i < c.plan.ranks(); ++i) {
      const CpRankCost& r = c.ranks[i];
      ranks.push_back(printf_string("{\"rank\":%d,\"tokens\":%lld,\"scores_computed\":%lld,\"scores_useful\":%lld,"
                                    "\"kv_bytes_ring\":%lld,\"kv_bytes_all_gather\":%lld,\"kv_bytes_needed\":%lld,"
                                    "\"pieces\":",
                                    i, static_cast<long long>(r.tokens), static_cast<long long>(r.scores_computed()),
                                    static_cast<long long>(r.scores_useful()), static_cast<long long>(r.kv_bytes_ring),
                                    static_cast<long long>(r.kv_bytes_all_gather),
                                    static_cast<long long>(r.kv_bytes_needed)) +
                      json_array(c.plan.pieces[i], piece) + "}");
    }
    return printf_string(
               "{\"strategy\":%s,\"useful_imbalance\":%.6f,\"computed_imbalance\":%.6f,"
               "\"one_gpu_scores_computed\":%lld,\"ranks\":",
               json_string(cp_strategy_name(c.plan.strategy)).c_str(), c.useful_imbalance, c.computed_imbalance,
               static_cast<long long>(c.one_gpu_scores_computed)) +
           json_array(ranks, [](const std::string& r) { return r; }) + "}";
  };
  const CpCost& any = costs.front();
  std::printf("{\"scenario\":%s,\"ranks\":%d,\"tile\":[%d,%d],\"kv_bytes_per_token\":%lld,\"strategies\":%s}\n",
              json_string(s.name).c_str(), any.plan.ranks(), any.tile.rows, any.tile.cols,
              static_cast<long long>(any.kv_bytes_per_token), json_array(costs, strategy).c_str());
}

}  // namespace

// `attnlab cp [SCENARIO] --ranks N [--strategy contiguous|zigzag|documents|all] [--format table|csv|json]
// [--kernel NAME]`: the context-parallel model (core/README.md, "Context parallelism").
void add_cp_command(CLI::App& app) {
  auto options = std::make_shared<CpOptions>();
  CLI::App* cmd =
      app.add_subcommand("cp", "Print the context-parallel model: each rank's scores, K/V bytes and imbalance");
  cmd->add_option("scenario", options->scenario, "Scenario name (see `attnlab list`) or path to a .toml file")
      ->capture_default_str();
  cmd->add_option("--ranks", options->ranks, "Context-parallel size N (ranks the documents are split over)");
  cmd->add_option("--strategy", options->strategy, "contiguous, zigzag, documents or all")->capture_default_str();
  cmd->add_option("--format", options->format, "table, csv (one row per strategy and rank) or json (with the pieces)")
      ->capture_default_str();
  cmd->add_option("--kernel", options->kernel,
                  "Count scores at this flash kernel's tile: " + flash_kernel_names() + " (default: 64x64)");
  cmd->callback([options] {
    const int ranks = parse_ranks(options->ranks);
    const std::vector<CpStrategy> strategies = parse_strategies(options->strategy);
    if (options->format != "table" && options->format != "csv" && options->format != "json")
      throw InputError("--format: expected table, csv or json, got \"" + options->format + "\"");
    const TileShape tile =
        options->kernel.empty() ? default_flash_tile : kernel_tile(parse_flash_kernel(options->kernel));
    const Scenario scenario = load_scenario(options->scenario);
    std::vector<CpCost> costs;
    for (CpStrategy strategy : strategies) costs.push_back(model_context_parallel(scenario, ranks, strategy, tile));
    if (options->format == "csv") return print_csv(scenario, costs);
    if (options->format == "json") return print_json(scenario, costs);
    print_header(scenario, ranks, costs.front(), options->kernel);
    for (const CpCost& c : costs) print_strategy_table(c);
    std::printf(
        "\nScores over all heads; each piece runs as one kernel row over the keys of its document.\n"
        "K/V in: what a rank receives of documents split over several ranks. Ring: N - 1 send/recv steps,\n"
        "every rank's shard passing every rank. All-gather: one collective of equal counts, shards padded\n"
        "to the largest. Needed: the K/V of other ranks' tokens this rank's queries attend.\n");
  });
}

}  // namespace attnlab::cli
