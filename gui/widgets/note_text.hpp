#pragma once
// A note under a table or plot: wrapped text in the disabled colour (what a number
// means, where it comes from), apart from the figures themselves.
#include <imgui.h>

namespace attnlab::gui {

void note_text(const char* format, ...) IM_FMTARGS(1);

}  // namespace attnlab::gui
