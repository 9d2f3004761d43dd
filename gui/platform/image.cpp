#include "gui/platform/image.hpp"

#include <stb/stb_image_write.h>

#include <string>

#include "core/io/atomic_file.hpp"
#include "core/io/input_error.hpp"

namespace attnlab::gui {

namespace {

extern "C" void append_bytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

}  // namespace

void write_png(const Image& image, const std::filesystem::path& path) {
  std::string png;
  if (!stbi_write_png_to_func(append_bytes, &png, image.width, image.height, 4, image.rgba.data(), image.width * 4))
    throw InputError(printable(path.string(), 4096) + ": cannot write the PNG (the image could not be encoded)");
  write_file_atomically(path, png, "PNG");
}

}  // namespace attnlab::gui
