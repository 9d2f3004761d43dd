#pragma once
// Text wrapped to the space left on the line, broken at spaces only. Dear ImGui's own
// TextWrapped also breaks after '.' and ',', which cuts numbers in two ("1.\n42x",
// "1,\n170 µs"); a number here is never split.
#include <imgui.h>

#include <cstdarg>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

// `text` cut into lines no wider than `width` (as `measure` says), at spaces and at its
// own line breaks; never between a number and its unit ("1.07 G", "319,937 µs", "56.2 GiB":
// the formatter's units, number_format.hpp); a word wider than `width` is cut after a '-',
// '_' or '/' where one fits (a file name), else stands on a line of its own: never at '.' or ','.
std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure);

// printf-style, wrapped to the content region's width, in the current text colour.
void wrapped_text(const char* format, ...) IM_FMTARGS(1);
// The same in `color` (a warning, an error).
void wrapped_text_colored(const ImVec4& color, const char* format, ...) IM_FMTARGS(2);
void wrapped_text_v(const char* format, va_list args) IM_FMTLIST(1);

}  // namespace attnlab::gui
