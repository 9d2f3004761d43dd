#include <cstdio>
#include <exception>

#include "cli/commands.hpp"
#include "core/input_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"attnlab: model, run, verify and benchmark causal attention over padded, packed and varlen layouts"};
  app.require_subcommand(1);
  attnlab::cli::add_list_command(app);
  attnlab::cli::add_model_command(app);
  attnlab::cli::add_run_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const attnlab::InputError& e) {
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return 2;
  } catch (const attnlab::NoGpuError& e) {
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
