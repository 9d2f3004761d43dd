#include "gui/window_size.hpp"

#include <charconv>
#include <string>

#include "core/input_error.hpp"

namespace attnlab::gui {

WindowSize parse_window_size(std::string_view text) {
  const auto fail = [&] {
    return InputError("--size: expected WIDTHxHEIGHT with each side 64..8192, e.g. 1280x800, got \"" +
                      std::string(text) + "\"");
  };
  WindowSize size;
  const char* end = text.data() + text.size();
  auto [after_width, ec1] = std::from_chars(text.data(), end, size.width);
  if (ec1 != std::errc() || after_width == end || *after_width != 'x') throw fail();
  auto [after_height, ec2] = std::from_chars(after_width + 1, end, size.height);
  if (ec2 != std::errc() || after_height != end) throw fail();
  if (size.width < 64 || size.width > 8192 || size.height < 64 || size.height > 8192) throw fail();
  return size;
}

}  // namespace attnlab::gui
