#pragma once
#include <string_view>

namespace attnlab::gui {

struct WindowSize {
  int width = 1280, height = 800;
};

// "1280x800" -> {1280, 800}; each side 64..8192. Throws InputError naming --size otherwise.
WindowSize parse_window_size(std::string_view text);

// "640,400" -> a pixel of the window (--mouse: where a headless picture puts the mouse,
// to show a tooltip). Throws InputError naming --mouse unless both are in 0..8191.
struct ScreenPoint {
  int x = 0, y = 0;
};
ScreenPoint parse_screen_point(std::string_view text);

}  // namespace attnlab::gui
