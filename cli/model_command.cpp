#include "cli/commands.hpp"

namespace attnlab::cli {

// Placeholder: the model command lands with its issue.
void add_model_command(CLI::App& app) { app.add_subcommand("model", "(not yet built)"); }

}  // namespace attnlab::cli
