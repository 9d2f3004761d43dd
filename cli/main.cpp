#include "cli/commands.hpp"
#include "core/io/program_exit.hpp"

int main(int argc, char** argv) {
  CLI::App app{"attnlab: model, run, verify and benchmark causal attention over padded, packed and varlen layouts"};
  app.require_subcommand(1);
  attnlab::cli::add_list_command(app);
  attnlab::cli::add_model_command(app);
  attnlab::cli::add_results_command(app);
  attnlab::cli::add_run_command(app);
  attnlab::cli::add_step_command(app);
  attnlab::cli::add_cp_command(app);
  return attnlab::run_program("attnlab", [&] {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return e.get_exit_code() == 0 ? app.exit(e) : attnlab::refuse_arguments("attnlab", e.what());
    }
    return 0;
  });
}
