#include "core/atomic_file.hpp"

#include <unistd.h>

#include <fstream>
#include <string>
#include <system_error>

#include "core/input_error.hpp"

namespace attnlab {

void write_file_atomically(const std::filesystem::path& path, std::string_view text, std::string_view what) {
  const auto fail = [&](const std::string& why) {
    return InputError(path.string() + ": cannot write the " + std::string(what) + " (" + why + ")");
  };
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
