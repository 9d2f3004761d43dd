#pragma once
#include <filesystem>
#include <string_view>

namespace attnlab {

// Refuses a target that exists and is not a regular file (a folder, a symlink, a device, a
// FIFO): the rename below would replace it with a plain file (as root, --out /dev/null would
// replace /dev/null). Throws InputError "<path>: cannot write the <what> (...)". Callers that
// do long work before writing call it first, so a bad target fails before the work.
void check_replaceable_file(const std::filesystem::path& path, std::string_view what);

// Writes text to path through a temp file beside it and a rename, so a reader never
// sees half a file and a failure leaves nothing behind. The temp file is created
// exclusively under a fresh name (a planted symlink is never followed), gets the permissions
// of the file it replaces without its setuid, setgid and sticky bits (or a new file's mode
// under the umask), and is removed if a signal ends the program before the rename (any signal
// left at a default action that ends it, but the faults: SIGTERM, SIGINT, SIGPIPE, SIGXFSZ, ...;
// SIGKILL cannot be caught). Checks the target with
// check_replaceable_file first. On failure throws InputError
// "<path>: cannot write the <what> (<why>)".
void write_file_atomically(const std::filesystem::path& path, std::string_view text, std::string_view what);

}  // namespace attnlab
