#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/input_error.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, ReplacesTheFileWholeAndLeavesNoTempFile) {
  const fs::path dir = fs::temp_directory_path() / "attnlab_atomic_file_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "out.txt";
  write_file_atomically(target, "first\n", "test file");
  write_file_atomically(target, "second\n", "test file");
  EXPECT_EQ(read_all(target), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, AFolderThatIsNotThereIsOneClearErrorAndNothingWritten) {
  const fs::path target = fs::temp_directory_path() / "attnlab_no_such_folder" / "out.txt";
  fs::remove_all(target.parent_path());
  try {
    write_file_atomically(target, "text", "test file");
    FAIL() << "wrote into a folder that does not exist";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(target.string() + ": cannot write the test file (", 0), 0u) << e.what();
  }
  EXPECT_FALSE(fs::exists(target.parent_path()));
}

}  // namespace
}  // namespace attnlab
