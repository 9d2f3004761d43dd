#include "gui/platform/command_line.hpp"

#include <string>

#include "core/io/input_error.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/view_list.hpp"

namespace attnlab::gui {

void check_flags_fit_view(View view, const FlagsGiven& given) {
  const std::string shown = std::string("--view ") + view_name(view);
  if (given.story_step && view != View::story)
    throw InputError("--story-step: a step of the Story (--view story), not of " + shown);
  if (given.scenario && view == View::story)
    throw InputError(
        "--scenario: the Story opens each step's own scenario; to show this one, add --view masks, costs, timings, "
        "... instead of the Story");
  if (given.mask_cells && view != View::masks && view != View::scenario)
    throw InputError("--mask-cells: the Masks and Scenario views' pictures read it, not " + shown);
  if (given.pass && view != View::costs && view != View::timings)
    throw InputError("--pass: the Costs and Timings views read it, not " + shown);
  if (given.mouse && !given.screenshot) throw InputError("--mouse: only with --screenshot (a picture's tooltip)");
}

AppState start_state(const StartOptions& o, const std::string& results_folder) {
  // The Story opens its step's own scenario: the default one need not exist for it.
  AppState state =
      make_app_state(o.view == View::story ? story_steps()[o.story_step - 1].scenario : o.scenario, results_folder);
  state.view = o.view;
  if (o.view == View::story) open_story_step(state, o.story_step - 1);  // its zoom, tile and pass
  state.text_scale = o.text_scale;
  if (o.view != View::story) state.pass = o.pass;
  if (o.mask_cells)
    for (MaskViewport& vp : state.mask_viewports) vp.fit_cells = *o.mask_cells;
  return state;
}

}  // namespace attnlab::gui
