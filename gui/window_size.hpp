#pragma once
#include <string_view>

namespace attnlab::gui {

struct WindowSize {
  int width = 1280, height = 800;
};

// "1280x800" -> {1280, 800}; each side 64..8192. Throws InputError naming --size otherwise.
WindowSize parse_window_size(std::string_view text);

}  // namespace attnlab::gui
