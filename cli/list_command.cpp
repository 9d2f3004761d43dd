#include "cli/commands.hpp"

namespace attnlab::cli {

// Placeholder: the list command lands with its issue.
void add_list_command(CLI::App& app) { app.add_subcommand("list", "(not yet built)"); }

}  // namespace attnlab::cli
