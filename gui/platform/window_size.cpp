#include "gui/platform/window_size.hpp"

#include <optional>
#include <string>
#include <utility>

#include "core/io/input_error.hpp"
#include "core/io/number_flags.hpp"

namespace attnlab::gui {

namespace {

// Two decimal integers joined by `separator`, each within [lo, hi]; nullopt for anything else.
std::optional<std::pair<int, int>> parse_pair(std::string_view text, char separator, std::uint64_t lo,
                                              std::uint64_t hi) {
  const std::size_t at = text.find(separator);
  if (at == std::string_view::npos) return std::nullopt;
  const auto a = plain_integer(text.substr(0, at), lo, hi), b = plain_integer(text.substr(at + 1), lo, hi);
  if (!a || !b) return std::nullopt;
  return std::pair{static_cast<int>(*a), static_cast<int>(*b)};
}

}  // namespace

WindowSize parse_window_size(std::string_view text) {
  const auto size = parse_pair(text, 'x', 64, 8192);
  if (!size)
    throw InputError("--size: expected WIDTHxHEIGHT with each side 64..8192, e.g. 1280x800, got \"" +
                     printable(text, 40) + "\"");
  return {size->first, size->second};
}

ScreenPoint parse_screen_point(std::string_view text) {
  const auto point = parse_pair(text, ',', 0, 8191);
  if (!point) throw InputError("--mouse: expected X,Y in pixels, e.g. 640,400, got \"" + printable(text, 40) + "\"");
  return {point->first, point->second};
}

}  // namespace attnlab::gui
