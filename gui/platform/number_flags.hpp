#pragma once
// The GUI's numeric flags (--story-step, --mask-cells, --text-scale, --size, --mouse), read
// one way: plain decimal digits, a fraction only where the flag takes one, no sign, no base
// prefix ("0x10", "010"), no exponent, no "nan" or "inf", nothing after; a value outside its
// range is refused. Every error is one line naming the flag, what it takes and the text given.
#include <optional>
#include <string_view>

namespace attnlab::gui {

// Digits, and for `fraction` a point and more digits ("1.75"); at most 12 characters; no
// leading zero before another digit. Empty for anything else.
std::optional<double> parse_decimal(std::string_view text, bool fraction);

// An integer flag from `min` to `max`. Throws InputError: "--story-step: expected an integer
// from 1 to 10, got "010"".
int parse_integer_flag(std::string_view text, const char* flag, int min, int max);
// A real flag from `min` to `max`, written as digits with an optional fraction.
double parse_real_flag(std::string_view text, const char* flag, double min, double max);

}  // namespace attnlab::gui
