#pragma once
// An RGBA picture read back from the framebuffer, top row first, and its PNG file.
#include <array>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace attnlab::gui {

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4

  std::array<std::uint8_t, 4> pixel(int x, int y) const {
    const std::uint8_t* p = rgba.data() + (static_cast<std::size_t>(y) * width + x) * 4;
    return {p[0], p[1], p[2], p[3]};
  }
};

// Writes the image as PNG through the project's one atomic writer (core/io/atomic_file.hpp):
// a folder, symlink, device or FIFO is refused and left alone. Throws InputError naming the
// file when it cannot be written.
void write_png(const Image& image, const std::filesystem::path& path);

}  // namespace attnlab::gui
