#include "cli/commands.hpp"

namespace attnlab::cli {

// Placeholder: the run command lands with its issue.
void add_run_command(CLI::App& app) { app.add_subcommand("run", "(not yet built)"); }

}  // namespace attnlab::cli
