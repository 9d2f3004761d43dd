#include "core/atomic_file.hpp"

#include <unistd.h>

#include <fstream>
#include <string>
#include <system_error>

#include "core/input_error.hpp"

namespace attnlab {

namespace {

InputError cannot_write(const std::filesystem::path& path, std::string_view what, const std::string& why) {
  return InputError(printable(path.string(), 4096) + ": cannot write the " + std::string(what) + " (" + why + ")");
}

}  // namespace

void check_replaceable_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path, ec);  // the link itself, not what it points to
  if (ec && ec != std::errc::no_such_file_or_directory) throw cannot_write(path, what, ec.message());
  switch (status.type()) {
    case std::filesystem::file_type::not_found:
    case std::filesystem::file_type::regular: return;
    case std::filesystem::file_type::directory: throw cannot_write(path, what, "it is a folder");
    case std::filesystem::file_type::symlink:
      throw cannot_write(path, what, "it is a symbolic link, which would be replaced; name the file it points to");
    default: throw cannot_write(path, what, "it exists and is not a regular file (a device, FIFO or socket)");
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text, std::string_view what) {
  check_replaceable_file(path, what);
  const auto fail = [&](const std::string& why) { return cannot_write(path, what, why); };
  std::filesystem::path temp = path;
  temp += ".tmp" + std::to_string(::getpid());  // one per process: two writers never share a temp file
  std::error_code ec;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, ec);
      throw fail("writing " + temp.string() + " failed");
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(temp, ec);
    throw fail(why);
  }
}

}  // namespace attnlab
