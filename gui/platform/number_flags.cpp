#include "gui/platform/number_flags.hpp"

#include <charconv>
#include <cstdio>
#include <string>

#include "core/input_error.hpp"

namespace attnlab::gui {

namespace {

constexpr std::size_t max_digits = 12;  // more than any flag's range needs, so no value overflows

std::string shown(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

[[noreturn]] void refuse(std::string_view text, const char* flag, const std::string& expected) {
  throw InputError(std::string(flag) + ": expected " + expected + ", got \"" + printable(text, 40) + "\"");
}

}  // namespace

std::optional<double> parse_decimal(std::string_view text, bool fraction) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  const std::size_t point = fraction ? text.find('.') : std::string_view::npos;
  const std::string_view whole = text.substr(0, point);
  const std::string_view part = point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(whole) || (point != std::string_view::npos && !digits(part))) return std::nullopt;
  if (whole.size() > 1 && whole[0] == '0') return std::nullopt;  // "010": octal to C, ten to a person
  double value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);  // the grammar above is a subset of its own
  return value;
}

int parse_integer_flag(std::string_view text, const char* flag, int min, int max) {
  const std::optional<double> value = parse_decimal(text, false);
  if (!value || *value < min || *value > max)
    refuse(text, flag, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return static_cast<int>(*value);
}

double parse_real_flag(std::string_view text, const char* flag, double min, double max) {
  const std::optional<double> value = parse_decimal(text, true);
  if (!value || *value < min || *value > max) refuse(text, flag, "a number from " + shown(min) + " to " + shown(max));
  return *value;
}

}  // namespace attnlab::gui
