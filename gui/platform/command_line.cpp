#include "gui/platform/command_line.hpp"

#include <string>

#include "core/input_error.hpp"
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

}  // namespace attnlab::gui
