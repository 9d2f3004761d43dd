#pragma once
// The fuzz targets hand each input to the real readers, which take paths: the input is
// written to a file in a folder of this process's own.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace attnlab::fuzz {

inline std::filesystem::path fuzz_folder() {
  static const std::filesystem::path folder = [] {
    const auto f = std::filesystem::temp_directory_path() / ("attnlab-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(f);
    return f;
  }();
  return folder;
}

// Writes the input as fuzz_folder()/name and returns that path.
inline std::filesystem::path write_input(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::filesystem::path path = fuzz_folder() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace attnlab::fuzz
