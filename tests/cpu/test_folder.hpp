#pragma once
// A folder of its own for each test: PREFIX + the test's name under the temp folder,
// emptied before the test and removed after it, and a way to write a file there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>

namespace attnlab {

// The running test's folder: the temp folder / PREFIX + the test's name.
inline std::filesystem::path test_folder_path(std::string_view prefix) {
  return std::filesystem::temp_directory_path() /
         (std::string(prefix) + ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

class TestFolder : public ::testing::Test {
 protected:
  explicit TestFolder(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir_ = test_folder_path(prefix_);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `text` byte for byte to NAME in the folder.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace attnlab
