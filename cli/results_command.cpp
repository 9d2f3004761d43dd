#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "analysis/primary_runs.hpp"
#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/io/input_error.hpp"

namespace attnlab::cli {

namespace {

struct ResultsOptions {
  std::vector<std::string> paths;
  std::string out;
};

// Two passes over the runs, the widths first: the table is never held (a folder may hold 2^18 rows).
void print_primary_runs(const std::vector<MeasuredRun>& runs) {
  TextTable table({"scenario", "implementation", "source", "kernel", "pass", "dtype", "head dim", "heads", "file",
                   "median", "runs"},
                  9);
  const auto cells = [](const MeasuredRun& m) -> std::vector<std::string> {
    const ResultRow& r = *m.primary.row;
    return {r.scenario,
            r.implementation,
            r.source,
            r.kernel.empty() ? "-" : r.kernel,
            pass_name(r.pass),
            dtype_name(r.dtype),
            std::to_string(r.head_dim),
            std::to_string(r.heads),
            file_name(m.primary),
            format_us(*r.median_us),
            m.runs() > 1 ? spread_text(m) : "1"};
  };
  for (const MeasuredRun& m : runs) table.widen(cells(m));
  table.print_header(stdout);
  for (const MeasuredRun& m : runs) table.print_row(stdout, cells(m));
}

}  // namespace

// `attnlab results PATH... [--out FILE.csv]`: the primary run of every configuration the
// files hold (analysis/primary_runs.hpp), as a table or as a results CSV, so that a script
// (python -m attnlab.tables) takes the runs the CLI and the GUI show instead of choosing again.
void add_results_command(CLI::App& app) {
  auto options = std::make_shared<ResultsOptions>();
  CLI::App* cmd = app.add_subcommand("results", "Print the primary run of each configuration in results CSVs");
  cmd->add_option("paths", options->paths, "Results CSV files or folders of them")->required();
  cmd->add_option("--out", options->out,
                  "Write the primary runs' rows to this results CSV instead of printing a table");
  cmd->callback([options] {
    LoadedResults results;
    for (const std::string& path : options->paths) load_results(results, path);
    if (!results.problems.empty()) throw InputError(results.problems.front());
    const std::vector<MeasuredRun> runs = primary_runs(results, [](const ResultRow&) { return true; });
    if (options->out.empty()) {
      print_primary_runs(runs);
      return;
    }
    std::vector<ResultRow> rows;
    for (const MeasuredRun& m : runs) rows.push_back(*m.primary.row);
    write_results_csv(options->out, rows);
  });
}

}  // namespace attnlab::cli
