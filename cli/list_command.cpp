#include <cstdio>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"

namespace attnlab::cli {

// `attnlab list`: the shipped scenarios, each with the sentence saying why it exists.
void add_list_command(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "List the shipped scenarios with their one-line why");
  list->callback([] {
    TextTable table({"scenario", "why"}, 2);
    for (const ScenarioEntry& s : list_scenario_entries())
      table.add_row({s.name == default_scenario_name ? s.name + " (default)" : s.name, s.why});
    std::fputs(table.render().c_str(), stdout);
    std::printf("\nfolder: %s\n", printable(scenarios_folder().string(), 4096).c_str());
  });
}

}  // namespace attnlab::cli
