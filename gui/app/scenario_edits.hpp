#pragma once
// Every change the Scenario view makes goes through here, and the tests drive the
// same functions: an edit is applied to a copy of the scenario, which is then
// resolved (lengths re-drawn, values checked); a valid result replaces the
// scenario and bumps its version so the model is rebuilt, an invalid one (any
// exception, usually an InputError) leaves it as it was and says why in scenario_error.
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "gui/app/app_state.hpp"

namespace attnlab::gui {

bool apply_edit(AppState& state, const std::function<void(Scenario&)>& change);

// A number the Scenario view shows as a slider; only the fields that apply to
// the scenario's length source are shown.
struct ScenarioField {
  const char* label;
  double min, max;
  const char* format;  // the slider's printf format: "%.0f" for whole numbers, even a real one (a length in tokens)
  bool logarithmic;
  bool (*applies)(const Scenario&);
  double (*get)(const Scenario&);
  void (*set)(Scenario&, double);
};
std::span<const ScenarioField> scenario_fields();
// What the sliders allow but the lengths do not follow, in words: a log-normal median above
// its longest (or below its shortest) draws lengths capped at that bound. Empty when none.
std::string length_source_note(const Scenario& scenario);
const ScenarioField* find_scenario_field(std::string_view label);
bool set_field(AppState& state, const ScenarioField& field, double value);

// Switches the length source to "uniform", "list" or "lognormal", starting from the current lengths.
bool set_length_source_kind(AppState& state, std::string_view kind);
// Replaces the lengths with a list written as "512, 1024 300" (commas or spaces).
bool set_length_list(AppState& state, std::string_view text);
std::string length_list_text(const Scenario& scenario);
bool set_pad_to(AppState& state, std::optional<int> pad_to);
bool set_packing(AppState& state, PackingPolicy policy);
// Switching causal keeps a window: (left, 0) either way, since a causal mask bounds the right side.
bool set_causal(AppState& state, bool causal);
// A sliding window as FlashAttention's window_size; Window{} removes it.
bool set_window(AppState& state, Window window);
bool set_dtype(AppState& state, DType dtype);
// The flash kernels' tile (the Scenario view's choice is square, a kernel's need not be).
bool set_tile(AppState& state, TileShape tile);
// Re-reads the names of the shipped scenarios; a missing folder is said in scenario_error.
void refresh_shipped_scenarios(AppState& state);
// Replaces the scenario with a shipped one (a name) or a file (a path).
bool open_scenario(AppState& state, std::string_view name_or_path);
// Writes the scenario as a TOML file the CLI reads; the message says where, or why not.
bool save_scenario_as(AppState& state, const std::string& path, std::string& message);

}  // namespace attnlab::gui
