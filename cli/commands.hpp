#pragma once
// Each subcommand of `attnlab` lives in its own file and registers itself here.
#include <CLI/CLI.hpp>

namespace attnlab::cli {

void add_cp_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_model_command(CLI::App& app);
void add_results_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_step_command(CLI::App& app);

}  // namespace attnlab::cli
