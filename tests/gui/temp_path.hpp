#pragma once
// A path under the temp folder that no other test process uses (ctest runs in parallel, and so do other builds).
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab::gui {

inline std::filesystem::path unique_temp_path(std::string_view name) {
  return std::filesystem::temp_directory_path() / ("attnlab-gui-" + std::to_string(getpid()) + "-" + std::string(name));
}

}  // namespace attnlab::gui
