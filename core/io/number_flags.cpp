#include "core/io/number_flags.hpp"

#include <charconv>
#include <cstdio>

#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

bool digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

// Digits with no leading zero before another digit ("0" itself is zero).
bool plain_whole(std::string_view s) { return digits(s) && !(s.size() > 1 && s[0] == '0'); }

std::string expected_integer(std::string_view text, std::uint64_t min, std::uint64_t max) {
  return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got \"" +
         printable(text, 40) + "\"";
}

std::string shown(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

std::optional<std::uint64_t> plain_integer(std::string_view text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  if (!plain_whole(text)) return std::nullopt;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) return std::nullopt;
  return value;
}

std::string integer_flag_problem(std::string_view text, std::uint64_t min, std::uint64_t max) {
  return plain_integer(text, min, max) ? std::string() : expected_integer(text, min, max);
}

std::uint64_t parse_integer_flag(std::string_view text, const char* flag, std::uint64_t min, std::uint64_t max) {
  const std::optional<std::uint64_t> value = plain_integer(text, min, max);
  if (!value) throw InputError(std::string(flag) + ": " + expected_integer(text, min, max));
  return *value;
}

double parse_real_flag(std::string_view text, const char* flag, double min, double max) {
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const bool decimal =
      text.size() <= 24 && plain_whole(whole) && (point == std::string_view::npos || digits(text.substr(point + 1)));
  double value = 0;
  if (decimal) std::from_chars(text.data(), text.data() + text.size(), value);  // the grammar is a subset of its own
  if (!decimal || value < min || value > max)
    throw InputError(std::string(flag) + ": expected a number from " + shown(min) + " to " + shown(max) + ", got \"" +
                     printable(text, 40) + "\"");
  return value;
}

}  // namespace attnlab
