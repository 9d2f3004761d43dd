#include "core/program_exit.hpp"

#include <cstdio>
#include <exception>

#include "core/input_error.hpp"

namespace attnlab {

int run_program(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return exit_bad_input;
  } catch (const NoGpuError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return exit_no_gpu;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
    return exit_internal_error;
  }
}

}  // namespace attnlab
