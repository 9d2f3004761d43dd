#pragma once
// Every attnlab program reports failures the same way: one line on stderr,
// prefixed with its name, and an exit code that says what went wrong.
#include <functional>

namespace attnlab {

inline constexpr int exit_internal_error = 1;
inline constexpr int exit_bad_input =
    2;                                 // InputError (a scenario, CSV or flag was wrong), or a path the system refused
inline constexpr int exit_no_gpu = 3;  // NoGpuError: the command needs a CUDA GPU it can run on (sm_80 or newer)

// Runs a program's body and turns attnlab's errors into their exit codes; every message is
// printed through printable(), so input quoted in it cannot break the line.
int run_program(const char* program, const std::function<int()>& body);

// A refused command line (an unknown flag, a bad value): one printable line,
// "PROGRAM: MESSAGE (--help lists the flags)", and exit_bad_input. The message quotes argv,
// so it goes through printable() as every other message does.
int refuse_arguments(const char* program, const char* message);

}  // namespace attnlab
