#include "core/io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

// Closes the descriptor however the read ends.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string line_and_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const auto line = std::count(before.begin(), before.end(), '\n') + 1;
  const auto last_newline = before.rfind('\n');
  const std::size_t column = offset - (last_newline == std::string_view::npos ? 0 : last_newline + 1) + 1;
  return std::to_string(line) + ":" + std::to_string(column);
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what, std::int64_t max_bytes) {
  const std::string name = printable(path.string(), 4096);
  const auto fail = [&](const std::string& why) { return InputError(name + ": " + why); };
  const auto system_reason = [&] { return "cannot read the " + std::string(what) + " (" + std::strerror(errno) + ")"; };
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) throw fail(system_reason());
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw fail(system_reason());
  if (!S_ISREG(info.st_mode))
    throw fail(std::string(S_ISDIR(info.st_mode) ? "a folder" : "not a regular file (a FIFO, socket or device)") +
               "; expected a " + std::string(what));
  const auto too_large = [&](std::int64_t bytes) {
    return fail("the " + std::string(what) + " is " + std::to_string(bytes) + " bytes; at most " +
                std::to_string(max_bytes) + " are read");
  };
  if (info.st_size > max_bytes) throw too_large(info.st_size);
  std::string text(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t used = 0;
  while (true) {  // the file may have grown since fstat: read to its end, up to the limit
    if (used == text.size()) text.resize(std::min<std::size_t>(text.size() + 65536, max_bytes + 1));
    const ssize_t got = ::read(file.fd, text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw fail(system_reason());
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
    if (static_cast<std::int64_t>(used) > max_bytes) throw too_large(static_cast<std::int64_t>(used));
  }
  text.resize(used);
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw InputError(name + ":" + line_and_column(text, nul) + ": a NUL byte; expected text");
  return text;
}

}  // namespace attnlab
