#pragma once
// Text cut into lines at spaces, for the GUI (widths in pixels) and the CLI (widths in columns)
// alike. A general wrapper also breaks after '.' and ',', which cuts numbers in two ("1.\n42x",
// "1,\n170 µs"); here a number is never split, nor parted from its unit.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// `text` cut into lines no wider than `width` (as `measure` says), at spaces and at its
// own line breaks; never between a number and its unit ("1.07 G", "319,937 µs", "56.2 GiB":
// the formatter's units, number_format.hpp), nor before a name's middle dot ("attnlab ·" ends a
// line, "· wgmma-sm90" never starts one); a word wider than `width` is cut after a '-',
// '_' or '/' where one fits (a file name), else stands on a line of its own: never at '.' or ','.
std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure);

}  // namespace attnlab
