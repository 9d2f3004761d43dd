#pragma once
// Scenarios as TOML files (schema: scenarios/README.md). Every error is an
// InputError of one line naming the file, the key and what was expected.
#include <filesystem>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.hpp"

namespace attnlab {

inline constexpr const char* default_scenario_name = "uniform-64x512";

// The folder scenario names resolve in: $ATTNLAB_SCENARIOS if set, else the source tree's scenarios/.
std::filesystem::path scenarios_folder();

// A name ("uniform-64x512", looked up as scenarios_folder()/NAME.toml) or a path to a .toml file.
Scenario load_scenario(std::string_view name_or_path);

// Every *.toml in scenarios_folder(), sorted by name.
std::vector<Scenario> list_scenarios();

// Each scenario's name and why, in the order of list_scenarios: every file is loaded and so
// checked, one at a time, and only these two fields are kept (attnlab list).
struct ScenarioEntry {
  std::string name, why;
};
std::vector<ScenarioEntry> list_scenario_entries();

// Writes the scenario so load_scenario reads it back identically (name = the file's stem).
// A CSV source's path is rewritten relative to the new file. Written to a temporary
// file, then renamed, so a failure leaves nothing half-written.
void save_scenario(const Scenario& scenario, const std::filesystem::path& path);

}  // namespace attnlab
