#pragma once
// Text wrapped to the space left on the line by analysis/text_wrap.hpp's rule (at spaces only,
// a number never split nor parted from its unit), where Dear ImGui's own TextWrapped also
// breaks after '.' and ','.
#include <imgui.h>

#include <cstdarg>

#include "analysis/text_wrap.hpp"  // wrap_at_spaces, for views that place lines themselves

namespace attnlab::gui {

// printf-style, wrapped to the content region's width, in the current text colour.
void wrapped_text(const char* format, ...) IM_FMTARGS(1);
// The same in `color` (a warning, an error).
void wrapped_text_colored(const ImVec4& color, const char* format, ...) IM_FMTARGS(2);
void wrapped_text_v(const char* format, va_list args) IM_FMTLIST(1);

}  // namespace attnlab::gui
