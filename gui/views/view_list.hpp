#pragma once
// The list of views, defined once: the tab bar, the F1..F8 keys, --view and its help
// and error text all read it.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "gui/views/views.hpp"

namespace attnlab::gui {

struct ViewEntry {
  View view;
  const char* name;   // what --view takes
  const char* title;  // the tab's label
  void (*show)(AppState&);
};

inline constexpr std::array<ViewEntry, 8> view_list = {{
    {View::story, "story", "Story", show_story_view},
    {View::scenario, "scenario", "Scenario", show_scenario_view},
    {View::masks, "masks", "Masks", show_mask_view},
    {View::costs, "costs", "Costs", show_costs_view},
    {View::timings, "timings", "Timings", show_timings_view},
    {View::walkthrough, "walkthrough", "Flash walkthrough", show_walkthrough_view},
    {View::step, "step", "Training step", show_step_view},
    {View::context_parallel, "cp", "Context parallel", show_context_parallel_view},
}};

const ViewEntry& view_entry(View v);
inline const char* view_name(View v) { return view_entry(v).name; }
std::optional<View> parse_view(std::string_view name);
// "story, scenario, masks, costs, timings, walkthrough, step or cp": for help and error text.
std::string view_names_text();

}  // namespace attnlab::gui
