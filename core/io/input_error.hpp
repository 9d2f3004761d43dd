#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attnlab {

// Bad user input (a scenario, a CSV, a flag): the CLI prints the message as one
// line and exits with code 2. The message names the file, the key and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No usable CUDA GPU for a command that needs one: exit code 3.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Length of the well-formed UTF-8 sequence that starts at text[i] (1 for ASCII), 0 where
// none does (a stray or missing continuation byte, an overlong form, a surrogate).
std::size_t utf8_length(std::string_view text, std::size_t i);

// Text copied from input into a message, made safe to print on one line: control
// characters but tab (CR, LF, ESC, ...), DEL, C1 controls and bytes that are not UTF-8
// become \r, \n or \xNN, and text longer than max_bytes is cut, ending in "...".
// Printable text (ASCII or UTF-8) comes back unchanged, so escaping twice changes nothing.
std::string printable(std::string_view text, std::size_t max_bytes = 200);

}  // namespace attnlab
