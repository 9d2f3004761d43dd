#include "gui/platform/image.hpp"

#include <stb/stb_image_write.h>

#include <system_error>

#include "core/input_error.hpp"

namespace attnlab::gui {

void write_png(const Image& image, const std::filesystem::path& path) {
  std::filesystem::path temp = path;
  temp += ".partial";
  std::error_code ec;
  if (!stbi_write_png(temp.c_str(), image.width, image.height, 4, image.rgba.data(), image.width * 4)) {
    std::filesystem::remove(temp, ec);  // a disk that filled up mid-write leaves part of a file
    throw InputError(path.string() + ": cannot write the PNG (is the folder there and writable?)");
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw InputError(path.string() + ": cannot write the PNG: " + ec.message());
  }
}

}  // namespace attnlab::gui
