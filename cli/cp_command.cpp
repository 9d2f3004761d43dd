#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/measured_cp.hpp"
#include "analysis/number_format.hpp"
#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "cli/results_folder.hpp"
#include "cli/table.hpp"
#include "core/cost/context_parallel.hpp"
#include "core/io/input_error.hpp"
#include "core/io/number_flags.hpp"
#include "core/layout/tile_name.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario_file.hpp"
#include "kernels/attention.hpp"
#include "kernels/kernel_choice.hpp"
#include "reference/cp_forward.hpp"
#include "run/cp_over_nccl.hpp"
#include "run/cp_timing.hpp"

namespace attnlab::cli {

namespace {

struct CpOptions {
  std::string scenario = default_scenario_name;
  std::string ranks;
  std::string strategy = "all";
  std::string format = "table";
  std::string kernel;  // empty: the cost model's default tile
  bool check = false;
  std::string check_heads = "1";
  std::string seed = "1";
  bool run = false;
  bool nccl = false;
  std::string csv;  // --run's rows, empty: none written
  std::string sm_margin = "0";
  std::string transfer_channels = "0";
  bool register_buffers = false;
  std::string ring_buffers = "2";
  std::string reps = "20";
  std::string warmup = "3";
};

// The check's bounds (cli/README.md, "attnlab cp", states what it costs): U x H x D, the
// useful scores of one head x heads x head dim, which every one of its seven passes scores once
// (the whole reference, each strategy by ring and by all-gather), and T x H x D, the tokens' values
// it holds and compares. Nothing it does grows with the ranks beyond ranks^2 + pieces log pieces.
constexpr std::int64_t max_check_work = std::int64_t{1} << 31;
constexpr std::int64_t max_check_values = std::int64_t{1} << 23;
// --format json prints every piece: at most so many over the strategies (about 16 bytes each).
constexpr std::int64_t max_json_pieces = std::int64_t{1} << 20;
// The fp64 forward and the whole reference differ by rounding alone.
constexpr double check_tolerance = 1e-12;
// --run's --reps and --warmup, at most.
constexpr std::int64_t max_run_passes = 10000;
// --sm-margin, at most: beyond any GPU's SMs (a grid keeps one SM's CTAs whatever the margin).
constexpr std::int64_t max_sm_margin = 1024;
// --transfer-channels, at most: NCCL's own ceiling on channels.
constexpr std::int64_t max_transfer_channels = 64;
// --ring-buffers, at most: a ring of N ranks uses N - 1 (more are not allocated).
constexpr std::int64_t max_ring_buffers = max_cp_ranks;

std::vector<CpStrategy> parse_strategies(const std::string& text) {
  if (text == "all") return {all_cp_strategies.begin(), all_cp_strategies.end()};
  if (const auto strategy = parse_cp_strategy(text)) return {*strategy};
  throw InputError("--strategy: expected contiguous, zigzag, documents or all, got \"" + text + "\"");
}

// The rule of each strategy in one line (core/cost/README.md, "Context parallelism").
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
  std::printf("scenario     %s  (%s)\n", s.name.c_str(), printable(s.source.string(), 4096).c_str());
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

// The runs of this split the loaded results hold (`attnlab cp --run --csv` rows), a line each:
// the measured imbalance beside the model's, and the slowest rank against the whole run / N.
void print_measured_runs(const LoadedResults& results, const Scenario& s, const CpCost& c) {
  for (const MeasuredCpRun& run : measured_cp_runs(results, s.name, c.plan.ranks(), c.plan.strategy))
    std::printf("measured %s\n",
                measured_cp_summary(run, measured_cp_model_imbalance(s, c.plan.strategy, run)).c_str());
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

// The pieces --format json would print, at most: a document is cut into at most min(length, N)
// pieces (contiguous), min(length, 2N) (zigzag) or one (documents). Counted before the model is
// made, so a scenario of 2^24 one-token documents over 1024 ranks is refused before it costs.
void refuse_large_json(const Scenario& s, int ranks, const std::vector<CpStrategy>& strategies) {
  std::int64_t pieces = 0;
  for (CpStrategy strategy : strategies)
    for (const int length : s.doc_lengths)
      pieces +=
          strategy == CpStrategy::documents ? 1 : std::min(length, strategy == CpStrategy::zigzag ? 2 * ranks : ranks);
  if (pieces > max_json_pieces)
    throw InputError(
        printf_string("%s: --format json: up to %lld pieces of documents over %d ranks, above the limit of %lld; "
                      "print --format csv or table (one row per rank), or fewer documents or strategies",
                      s.source.empty() ? s.name.c_str() : printable(s.source.string(), 4096).c_str(),
                      static_cast<long long>(pieces), ranks, static_cast<long long>(max_json_pieces)));
}

// The model's K/V of all ranks, in tokens.
std::int64_t model_tokens(const CpCost& c, std::int64_t CpRankCost::*bytes) {
  return c.total(bytes) / c.kv_bytes_per_token;
}

// A check above the bounds is refused before anything is printed or allocated.
void refuse_large_check(const Scenario& s, const CpCost& any, int heads) {
  std::int64_t useful = 0;  // one head's
  for (const CpRankCost& r : any.ranks) useful += r.scores_useful();
  useful /= s.heads;
  const std::string file = s.source.empty() ? s.name : printable(s.source.string(), 4096);
  const std::int64_t work = useful * heads * s.head_dim, values = s.total_tokens() * heads * s.head_dim;
  if (work > max_check_work)
    throw InputError(
        printf_string("%s: --check: useful scores (%lld) x heads (%d) x head_dim (%d) = %lld is above "
                      "the check's limit of %lld; check fewer heads or a smaller scenario",
                      file.c_str(), static_cast<long long>(useful), heads, s.head_dim, static_cast<long long>(work),
                      static_cast<long long>(max_check_work)));
  if (values > max_check_values)
    throw InputError(
        printf_string("%s: --check: tokens (%lld) x heads (%d) x head_dim (%d) = %lld is above the "
                      "check's limit of %lld; check fewer heads or a smaller scenario",
                      file.c_str(), static_cast<long long>(s.total_tokens()), heads, s.head_dim,
                      static_cast<long long>(values), static_cast<long long>(max_check_values)));
}

// --check: the forward of each strategy, by ring and by all-gather, on the fp64 reference
// (reference/cp_forward.hpp) with seeded random Q, K and V for the first `heads` heads, each
// head its own K and V, against the whole varlen reference. Throws std::runtime_error (exit 1)
// on an error above check_tolerance or K/V that differ from the model.
void check_forward(const Scenario& s, const std::vector<CpCost>& costs, int heads, std::uint64_t seed) {
  const Layout varlen = s.varlen_layout();
  const AttentionInputs in = make_random_inputs(s.total_tokens(), heads, heads, s.head_dim, s.dtype, seed);
  const double scale = default_scale(s.head_dim);
  const ReferenceOutput whole = reference_materialized(varlen, in, scale);
  std::printf(
      "check        the forward on the fp64 reference, seed %llu, %d of %d heads (each its own K and V),\n"
      "             against the whole varlen run; tolerance %.0e (output relative L2, LSE absolute)\n\n",
      static_cast<unsigned long long>(seed), heads, s.heads, check_tolerance);
  TextTable table({"strategy", "exchange", "rel L2", "LSE error", "blocks used", "blocks skipped", "K/V in",
                   "K/V needed", "= model"},
                  2);
  bool passed = true;
  for (const CpCost& c : costs)
    for (CpExchange exchange : all_cp_exchanges) {
      const CpForwardRun run = run_cp_forward(varlen, in, scale, c.plan, exchange, whole);
      const std::int64_t received = model_tokens(c, &CpRankCost::kv_bytes_ring);
      const std::int64_t needed = model_tokens(c, &CpRankCost::kv_bytes_needed);
      const bool modelled = run.keys_received == received && run.keys_needed == needed;
      passed = passed && modelled && run.worst_rel_l2 <= check_tolerance && run.worst_lse_abs <= check_tolerance;
      table.add_row({cp_strategy_name(c.plan.strategy), cp_exchange_name(exchange),
                     printf_string("%.2e", run.worst_rel_l2), printf_string("%.2e", run.worst_lse_abs),
                     std::to_string(run.blocks_needed), std::to_string(run.blocks_skipped),
                     std::to_string(run.keys_received), std::to_string(run.keys_needed),
                     modelled ? "yes"
                              : printf_string("no: %lld in, %lld needed", static_cast<long long>(received),
                                              static_cast<long long>(needed))});
    }
  std::fputs(table.render().c_str(), stdout);
  std::printf(
      "\nrel L2, LSE error: the worst rank's, against the whole run. Blocks: the K/V shards the ranks\n"
      "receive from each other (ring: one a step after a rank's own); a block holding no key of the\n"
      "receiver's queries is skipped. K/V in and needed, in tokens over all ranks: received, and attended\n"
      "by the receiver's queries; = model: both are the model's ring and needed bytes / bytes per token.\n");
  if (!passed)
    throw std::runtime_error(
        printf_string("the context-parallel forward differs from the whole run above %.0e, or "
                      "from the model's K/V",
                      check_tolerance));
}

// Worse than this against the whole run is a wrong merge, not rounding (both runs' O are in
// the dtype: bf16 rounds at 2^-9 of a value).
constexpr double run_rel_l2_bound = 1e-2;
constexpr double run_lse_bound = 1e-3;

// The model of the strategy a run's exchange ran.
const CpCost& model_of(const std::vector<CpCost>& costs, const CpExchangeTimes& e) {
  return *std::find_if(costs.begin(), costs.end(), [&](const CpCost& c) { return c.plan.strategy == e.strategy; });
}

// One exchange's ranks: compute beside the model, and over NCCL the run's transfers.
// "0 / 312 / 41": the median wait before each step, whole µs ("..." past the steps kept).
std::string step_waits(const CpTransferTime& t) {
  const std::size_t kept = std::min(std::size_t(t.steps), t.step_wait_us.size());
  std::string out;
  for (std::size_t s = 0; s < kept; ++s) out += (s ? " / " : "") + printf_string("%.0f", t.step_wait_us[s]);
  return kept < std::size_t(t.steps) ? out + " / ..." : out;
}

void print_exchange(const CpExchangeTimes& e, const CpCost& model, bool over_nccl) {
  std::vector<std::string> columns{"rank",  "steps",      "launches",  "scores computed",
                                   "model", "compute us", "us / mean", "model / mean"};
  if (over_nccl)
    columns.insert(columns.end(), {"run us", "transfers us", "exposed us", "hidden", "K/V in", "waits by step us"});
  columns.insert(columns.end(), {"rel L2", "LSE error"});
  TextTable table(columns);
  for (std::size_t i = 0; i < e.ranks.size(); ++i) {
    const CpRankTime& r = e.ranks[i];
    std::vector<std::string> row{std::to_string(i),
                                 std::to_string(r.steps),
                                 std::to_string(r.launches),
                                 format_count(double(r.scores_computed)),
                                 format_count(double(model.ranks[i].scores_computed())),
                                 printf_string("%.1f", r.compute.median_us),
                                 format_ratio(r.compute.median_us / e.mean_us()),
                                 format_ratio(model.ranks[i].computed_vs_mean)};
    if (over_nccl && r.transfer) {
      const CpTransferTime& t = *r.transfer;
      row.insert(row.end(), {printf_string("%.1f", t.wall_us), printf_string("%.1f", t.transfer_us),
                             printf_string("%.1f", t.exposed_us),
                             t.bytes_received > 0 ? format_percent(t.hidden_us() / t.transfer_us) : "-",
                             format_bytes(double(t.bytes_received)), step_waits(t)});
    }
    row.insert(row.end(), {printf_string("%.2e", r.rel_l2), printf_string("%.2e", r.lse_max_abs)});
    table.add_row(row);
  }
  std::fputs(table.render().c_str(), stdout);
}

// --run: every strategy's ranks by ring and by all-gather, one after another on this GPU
// (run/cp_timing.hpp) or one process per GPU over NCCL (run/cp_over_nccl.hpp): each rank's
// compute time beside the model's scores computed, over NCCL its run and transfers, and its
// output against the whole varlen run. Throws std::runtime_error (exit 1) when an output is off.
void print_run(const std::vector<CpCost>& costs, const CpTimes& times, int warmup, int reps, std::uint64_t seed) {
  const int ranks = costs.front().plan.ranks();
  const bool over_nccl = times.gpus > 1;
  if (over_nccl)
    std::printf("run          %d GPUs, one process each, K/V over NCCL %s; %s; seed %llu, median of %d timed\n",
                times.gpus, times.nccl_version.c_str(), flash_kernel_info(times.kernel).name,
                static_cast<unsigned long long>(seed), reps);
  else
    std::printf("run          on one GPU, %s, the ranks one after another; seed %llu, median of %d timed\n",
                flash_kernel_info(times.kernel).name, static_cast<unsigned long long>(seed), reps);
  std::printf("             runs after %d warm-up; the whole varlen forward%s: %.1f us, / %d ranks = %.1f us\n", warmup,
              over_nccl ? " on rank 0's GPU" : "", times.whole.median_us, ranks, times.whole.median_us / ranks);
  if (times.settings.sm_margin > 0)
    std::printf("             each ring step's kernels leave %d SMs to the transfer beside them\n",
                times.settings.sm_margin);
  if (times.settings.transfer_channels > 0)
    std::printf("             the ring's transfers on at most %d NCCL channels, a communicator of their own\n",
                times.settings.transfer_channels);
  if (times.settings.registered_buffers)
    std::printf("             every K/V buffer sent or received registered with NCCL (no staging copy)\n");
  if (times.settings.ring_buffers != 2)
    std::printf("             the ring receives into %d buffers: a transfer waits for the step %d back\n",
                times.settings.ring_buffers, times.settings.ring_buffers);
  bool passed = true;
  for (const CpExchangeTimes& e : times.exchanges) {
    const CpCost& model = model_of(costs, e);
    std::printf("\n%s, %s\n", cp_strategy_name(e.strategy), cp_exchange_name(e.exchange));
    print_exchange(e, model, over_nccl);
    for (const CpRankTime& r : e.ranks)
      passed = passed && r.rel_l2 <= run_rel_l2_bound && r.lse_max_abs <= run_lse_bound;
    std::printf("imbalance (max / mean) %s measured, %s modelled (scores computed); slowest rank %s the whole / %d\n",
                format_ratio(e.slowest_us() / e.mean_us()).c_str(), format_ratio(model.computed_imbalance).c_str(),
                format_ratio(e.slowest_us() / (times.whole.median_us / ranks)).c_str(), ranks);
    if (over_nccl)
      std::printf("run: slowest %.1f us, %s the whole / %d; transfers exposed, slowest rank: %.1f us\n",
                  e.slowest_run_us(), format_ratio(e.slowest_run_us() / (times.whole.median_us / ranks)).c_str(), ranks,
                  e.most_exposed_us());
  }
  std::printf(
      "\nCompute us: a rank's steps back to back (its rounds' launches, each merging into the sums), its\n"
      "K/V already in memory: no communication. Scores computed: in its rounds' visited tiles, each\n"
      "received block tiled apart; model: one call per piece over all its keys (core/cost/README.md).\n"
      "rel L2, LSE error: the rank's merged output against the whole varlen run of the same inputs.\n");
  if (over_nccl)
    std::printf(
        "Run us: from a barrier of all ranks to the rank's last launch, its K/V sent by NCCL (ring: the next\n"
        "block beside each step's compute; all-gather: every shard, then the compute). Transfers us: their\n"
        "time on the rank's transfer stream, waits for the peer included; exposed: run - its kernels' time\n"
        "in the run; hidden: the transfers' time not exposed. K/V in: bytes received per run. Waits by\n"
        "step: the gap before each step's kernels (after the step before; before step 0, after the start)\n"
        "while its K/V were still arriving, medians.\n");
  if (!passed)
    throw std::runtime_error(
        printf_string("a rank's output differs from the whole run above %.0e (rel L2) or "
                      "%.0e (LSE)",
                      run_rel_l2_bound, run_lse_bound));
}

// --run's flags, --nccl's and --csv among them.
void add_run_flags(CLI::App& cmd, CpOptions& options) {
  cmd.add_flag("--run", options.run,
               "Run each strategy's ranks one after another on this GPU (ring and all-gather) through --kernel "
               "(default: the fastest this GPU runs): each rank's compute time and its output against the whole "
               "run; exit 1 on a mismatch, 3 without a GPU");
  cmd.add_flag("--nccl", options.nccl,
               "--run: one process per GPU (N GPUs), K/V sent by NCCL (libnccl.so.2 on the loader's path): each "
               "rank's run, transfers and exposed time besides its compute");
  cmd.add_option("--sm-margin", options.sm_margin,
                 "--nccl: SMs each ring step's kernels leave to the transfer beside them")
      ->capture_default_str();
  cmd.add_option("--transfer-channels", options.transfer_channels,
                 "--nccl: the ring's transfers on at most this many NCCL channels (CTAs), in a communicator of "
                 "their own; 0: NCCL's choice")
      ->capture_default_str();
  cmd.add_flag("--register-buffers", options.register_buffers,
               "--nccl: register every K/V buffer sent or received with NCCL, which then moves it without its "
               "staging copy");
  cmd.add_option("--ring-buffers", options.ring_buffers,
                 "--nccl: the ring's receive buffers (at most N - 1 are used): a transfer into one waits until the "
                 "step that read it is done, this many steps back; 2: double buffering")
      ->capture_default_str();
  cmd.add_option("--csv", options.csv,
                 "--run: also write one results row per strategy, exchange and rank to this file (results/README.md), "
                 "when every rank's output passes");
  cmd.add_option("--reps", options.reps, "--run: timed runs of each rank")->capture_default_str();
  cmd.add_option("--warmup", options.warmup, "--run: untimed runs before them")->capture_default_str();
}

// --run's numbers and flags, checked (before the scenario is read): refused where --run or --nccl
// is missing, a --csv path cannot be written, or --kernel cannot fold a round into sums.
struct RunFlags {
  int reps = 0, warmup = 0;
  CpTransferSettings settings;
};

RunFlags checked_run_flags(const CpOptions& options) {
  RunFlags f;
  f.reps = int(parse_integer_flag(options.reps, "--reps", 1, max_run_passes));
  f.warmup = int(parse_integer_flag(options.warmup, "--warmup", 0, max_run_passes));
  if (options.nccl && !options.run) throw InputError("--nccl: runs the ranks; give --run with it");
  if (!options.csv.empty() && !options.run) throw InputError("--csv: writes --run's rows; give --run with it");
  if (!options.csv.empty()) check_results_path(options.csv, "--csv");
  if (options.run && !options.kernel.empty() && !folds_into_sums(flash_kernel_info(parse_flash_kernel(options.kernel))))
    throw InputError("--kernel " + options.kernel +
                     ": a rung of the forward ladder stores its output; --run folds each round into sums: name "
                     "wgmma-sm90 or mma-sm80");
  f.settings.sm_margin = int(parse_integer_flag(options.sm_margin, "--sm-margin", 0, max_sm_margin));
  f.settings.transfer_channels =
      int(parse_integer_flag(options.transfer_channels, "--transfer-channels", 0, max_transfer_channels));
  f.settings.registered_buffers = options.register_buffers;
  f.settings.ring_buffers = int(parse_integer_flag(options.ring_buffers, "--ring-buffers", 2, max_ring_buffers));
  // Every transfer setting is NCCL's: refused where it differs from its default without --nccl.
  const CpTransferSettings defaults;
  const std::pair<bool, const char*> over_nccl_only[] = {
      {f.settings.sm_margin != defaults.sm_margin, "--sm-margin: leaves SMs to NCCL's transfers"},
      {f.settings.transfer_channels != defaults.transfer_channels, "--transfer-channels: caps NCCL's transfers"},
      {f.settings.registered_buffers != defaults.registered_buffers,
       "--register-buffers: registers the buffers NCCL moves"},
      {f.settings.ring_buffers != defaults.ring_buffers,
       "--ring-buffers: the buffers NCCL receives the ring's K/V into"}};
  for (const auto& [given, what] : over_nccl_only)
    if (given && !options.nccl) throw InputError(std::string(what) + "; give --nccl");
  return f;
}

// --run: the ranks timed on one GPU or over NCCL, their tables, and --csv's rows.
void run_ranks(const CpOptions& options, const RunFlags& f, const Scenario& scenario, const std::vector<CpCost>& costs,
               std::uint64_t seed) {
  std::vector<CpPlan> plans;
  for (const CpCost& c : costs) plans.push_back(c.plan);
  // No GPU: NoGpuError, one line, exit 3, before anything is printed. Over NCCL the ranks'
  // processes choose the kernel, so this process touches no CUDA before they start.
  const CpTimes times =
      options.nccl
          ? time_context_parallel_over_nccl(scenario, plans, options.kernel, f.warmup, f.reps, seed, f.settings)
          : time_context_parallel(scenario, plans, choose_flash_kernel(options.kernel, query_gpu().compute_capability),
                                  f.warmup, f.reps, seed);
  std::vector<CpCost> at_kernel;  // the model at the tile the run computes at
  for (const CpCost& c : costs)
    at_kernel.push_back(model_context_parallel(scenario, c.plan.ranks(), c.plan.strategy, kernel_tile(times.kernel)));
  print_header(scenario, plans.front().ranks(), at_kernel.front(), flash_kernel_info(times.kernel).name);
  std::printf("GPU          %s\n", printable(times.gpu, 256).c_str());
  print_run(at_kernel, times, f.warmup, f.reps, seed);
  if (!options.csv.empty()) {
    write_results_csv(options.csv, cp_result_rows(scenario, at_kernel, times, describe_run(query_gpu())));
    std::printf("\nrows         %s\n", printable(options.csv, 4096).c_str());
  }
}

}  // namespace

// `attnlab cp [SCENARIO] --ranks N [--strategy contiguous|zigzag|documents|all] [--format table|csv|json]
// [--kernel NAME]`: the context-parallel model (core/cost/README.md, "Context parallelism").
void add_cp_command(CLI::App& app) {
  auto options = std::make_shared<CpOptions>();
  CLI::App* cmd =
      app.add_subcommand("cp", "Print the context-parallel model: each rank's scores, K/V bytes and imbalance");
  cmd->add_option("scenario", options->scenario, "Scenario name (see `attnlab list`) or path to a .toml file")
      ->capture_default_str();
  // Numbers are taken as text and read by core/io/number_flags.hpp (CLI11 reads 010 as octal, wraps -1).
  cmd->add_option("--ranks", options->ranks, "Context-parallel size N (ranks the documents are split over)")
      ->required();
  cmd->add_option("--strategy", options->strategy, "contiguous, zigzag, documents or all")->capture_default_str();
  cmd->add_option("--format", options->format, "table, csv (one row per strategy and rank) or json (with the pieces)")
      ->capture_default_str();
  cmd->add_option("--kernel", options->kernel,
                  "Count scores at this flash kernel's tile: " + flash_kernel_names() + " (default: 64x64)");
  cmd->add_flag("--check", options->check,
                "Run each strategy's forward (ring and all-gather) on the fp64 reference and check its LSE merge "
                "against the whole run; exit 1 on a mismatch");
  cmd->add_option("--check-heads", options->check_heads, "Heads the check runs (the first ones)")
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed of the check's and the run's random Q, K, V, 0 to 2^64 - 1")
      ->capture_default_str();
  add_run_flags(*cmd, *options);
  cmd->callback([options] {
    const int ranks = int(parse_integer_flag(options->ranks, "--ranks", 1, max_cp_ranks));
    const std::uint64_t seed =
        parse_integer_flag(options->seed, "--seed", 0, std::numeric_limits<std::uint64_t>::max());
    const std::vector<CpStrategy> strategies = parse_strategies(options->strategy);
    if (options->format != "table" && options->format != "csv" && options->format != "json")
      throw InputError("--format: expected table, csv or json, got \"" + options->format + "\"");
    const TileShape tile =
        options->kernel.empty() ? default_flash_tile : kernel_tile(parse_flash_kernel(options->kernel));
    if (options->check && options->format != "table")
      throw InputError("--check: prints a table; --format " + options->format + " is the model's alone");
    if (options->run && options->format != "table")
      throw InputError("--run: prints a table; --format " + options->format + " is the model's alone");
    if (options->run && options->check) throw InputError("--run and --check: one at a time");
    const RunFlags run = checked_run_flags(*options);
    const Scenario scenario = load_scenario(options->scenario);
    const int check_heads = int(parse_integer_flag(options->check_heads, "--check-heads", 1, scenario.heads));
    if (options->format == "json") refuse_large_json(scenario, ranks, strategies);
    std::vector<CpCost> costs;
    for (CpStrategy strategy : strategies) costs.push_back(model_context_parallel(scenario, ranks, strategy, tile));
    if (options->run) return run_ranks(*options, run, scenario, costs, seed);
    if (options->check) {
      refuse_large_check(scenario, costs.front(), check_heads);
      print_header(scenario, ranks, costs.front(), options->kernel);
      return check_forward(scenario, costs, check_heads, seed);
    }
    if (options->format == "csv") return print_csv(scenario, costs);
    if (options->format == "json") return print_json(scenario, costs);
    print_header(scenario, ranks, costs.front(), options->kernel);
    const LoadedResults results = load_measured_results();
    for (const CpCost& c : costs) {
      print_strategy_table(c);
      print_measured_runs(results, scenario, c);
    }
    std::printf(
        "\nScores over all heads; each piece runs as one kernel row over the keys of its document.\n"
        "K/V in: what a rank receives of documents split over several ranks. Ring: N - 1 send/recv steps,\n"
        "every rank's shard passing every rank. All-gather: one collective of equal counts, shards padded\n"
        "to the largest. Needed: the K/V of other ranks' tokens this rank's queries attend.\n"
        "Measured: `attnlab cp --run --csv` rows of this split in %s ($ATTNLAB_RESULTS), where any are.\n",
        printable(default_results_folder().string(), 4096).c_str());
  });
}

}  // namespace attnlab::cli
