#include "core/io/program_exit.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

// Messages quote input (paths, keys, cells); printable() keeps them on one line, whatever they hold.
void print_line(const char* program, const char* prefix, const char* message) {
  std::fprintf(stderr, "%s: %s%s\n", program, prefix, printable(message, SIZE_MAX).c_str());
}

}  // namespace

int refuse_arguments(const char* program, const char* message) {
  print_line(program, "", (std::string(message) + " (--help lists the flags)").c_str());
  return exit_bad_input;
}

int run_program(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    print_line(program, "", e.what());
    return exit_bad_input;
  } catch (const NoGpuError& e) {
    print_line(program, "", e.what());
    return exit_no_gpu;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the system refused (a symlink loop, a path too long, no permission) that no
    // reader turned into an InputError: still the user's path, not attnlab's fault.
    print_line(program, "", e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {
    print_line(program, "internal error: ", e.what());
    return exit_internal_error;
  }
}

}  // namespace attnlab
