#pragma once
#include <stdexcept>
#include <string>

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

}  // namespace attnlab
