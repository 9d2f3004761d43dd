#include "gui/platform/window_size.hpp"

#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include "core/input_error.hpp"

namespace attnlab::gui {

namespace {

// Two integers joined by `separator`, each within [lo, hi]; nullopt for anything else.
std::optional<std::pair<int, int>> parse_pair(std::string_view text, char separator, int lo, int hi) {
  int a = 0, b = 0;
  const char* end = text.data() + text.size();
  const auto [after_a, ec1] = std::from_chars(text.data(), end, a);
  if (ec1 != std::errc() || after_a == end || *after_a != separator) return std::nullopt;
  const auto [after_b, ec2] = std::from_chars(after_a + 1, end, b);
  if (ec2 != std::errc() || after_b != end) return std::nullopt;
  if (a < lo || a > hi || b < lo || b > hi) return std::nullopt;
  return std::pair{a, b};
}

}  // namespace

WindowSize parse_window_size(std::string_view text) {
  const auto size = parse_pair(text, 'x', 64, 8192);
  if (!size)
    throw InputError("--size: expected WIDTHxHEIGHT with each side 64..8192, e.g. 1280x800, got \"" +
                     std::string(text) + "\"");
  return {size->first, size->second};
}

ScreenPoint parse_screen_point(std::string_view text) {
  const auto point = parse_pair(text, ',', 0, 8191);
  if (!point) throw InputError("--mouse: expected X,Y in pixels, e.g. 640,400, got \"" + std::string(text) + "\"");
  return {point->first, point->second};
}

}  // namespace attnlab::gui
