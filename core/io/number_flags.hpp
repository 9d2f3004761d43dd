#pragma once
// Numbers given on a command line (attnlab, attnlab-bench, attnlab-gui), read one way: decimal
// digits, a fraction only where the flag takes one; no sign, no base prefix ("0x10", or "010",
// which strtol and CLI11 read as octal), no exponent, no "nan" or "inf", nothing after. A value
// outside its range is refused: -1 never wraps to the largest unsigned value. Every error is one
// line naming the flag, what it takes and the text given.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab {

// `text` as an integer from `min` to `max`; empty for anything else.
std::optional<std::uint64_t> plain_integer(std::string_view text, std::uint64_t min, std::uint64_t max);

// What is wrong with `text` as an integer from `min` to `max`: empty when nothing is, else
// "expected an integer from MIN to MAX, got "TEXT"" (the message of a CLI11 validator).
std::string integer_flag_problem(std::string_view text, std::uint64_t min, std::uint64_t max);

// An integer flag from `min` to `max`. Throws InputError: "--seed: expected an integer from 0
// to 18446744073709551615, got "-1"".
std::uint64_t parse_integer_flag(std::string_view text, const char* flag, std::uint64_t min, std::uint64_t max);

// A real flag from `min` to `max`, written as digits with an optional fraction ("1.75").
double parse_real_flag(std::string_view text, const char* flag, double min, double max);

}  // namespace attnlab
