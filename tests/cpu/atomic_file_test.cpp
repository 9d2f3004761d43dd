#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "core/io/input_error.hpp"

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

// A fresh folder of this test's own under the system's temp folder.
fs::path fresh_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("attnlab_atomic_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(AtomicFile, KeepsTheModeOfTheFileItReplaces) {
  const fs::path dir = fresh_folder("mode");
  const fs::path target = dir / "out.csv";
  std::ofstream(target) << "old\n";
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomically(target, "new\n", "test file");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(read_all(target), "new\n");
  fs::remove_all(dir);
}

// The replaced file's permissions, never its setuid, setgid or sticky bit: root's --out onto a
// setuid file must not leave a setuid results file.
TEST(AtomicFile, DropsTheSetuidSetgidAndStickyBits) {
  const fs::path dir = fresh_folder("setuid");
  const fs::path target = dir / "out.csv";
  std::ofstream(target) << "old\n";
  ASSERT_EQ(::chmod(target.c_str(), 07750), 0);
  write_file_atomically(target, "new\n", "test file");
  struct stat written {};
  ASSERT_EQ(::stat(target.c_str(), &written), 0);
  EXPECT_EQ(written.st_mode & 07777, 0750u);
  fs::remove_all(dir);
}

// A symlink planted where a predictable temp name would be is neither followed nor moved onto the target.
TEST(AtomicFile, APlantedSymlinkIsNotFollowed) {
  const fs::path dir = fresh_folder("planted");
  const fs::path target = dir / "out.csv", victim = dir / "victim.txt";
  std::ofstream(victim) << "precious\n";
  for (const std::string& suffix : {".tmp" + std::to_string(::getpid()), std::string(".partial"), std::string(".tmp")})
    fs::create_symlink(victim, fs::path(target.string() + suffix));
  write_file_atomically(target, "rows\n", "test file");
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_EQ(fs::symlink_status(target).type(), fs::file_type::regular);
  EXPECT_EQ(read_all(target), "rows\n");
  fs::remove_all(dir);
}

// Special files are refused as targets and left as they are: a FIFO, and a device node made in a
// temp folder (never a real device) where this user may make one.
TEST(AtomicFile, SpecialFilesAreRefusedAndLeftAlone) {
  const fs::path dir = fresh_folder("special");
  const fs::path fifo = dir / "fifo", device = dir / "null-device";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(write_file_atomically(fifo, "x", "test file"), InputError);
  EXPECT_EQ(fs::symlink_status(fifo).type(), fs::file_type::fifo);
  if (::mknod(device.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) {
    EXPECT_THROW(write_file_atomically(device, "x", "test file"), InputError);
    EXPECT_EQ(fs::symlink_status(device).type(), fs::file_type::character);
  }
  EXPECT_THROW(write_file_atomically(dir, "x", "test file"), InputError);
  fs::remove_all(dir);
}

// SIGTERM while a write is under way: the target keeps its old text and no temp file stays behind.
TEST(AtomicFile, SigtermDuringAWriteLeavesTheTargetAndNoTempFile) {
  const fs::path dir = fresh_folder("sigterm");
  const fs::path target = dir / "out.csv";
  std::ofstream(target) << "old\n";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string big(std::size_t{1} << 28, 'x');  // long enough to be caught mid-write
    try {
      write_file_atomically(target, big, "test file");
    } catch (...) {}
    ::_exit(0);
  }
  const auto temp_exists = [&] {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path() != target) return true;
    return false;
  };
  for (int i = 0; i < 20000 && !temp_exists(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(500));
  const bool caught = temp_exists();
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(caught) << "the writer finished before it could be signalled";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_EQ(read_all(target), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  fs::remove_all(dir);
}

// SIGXFSZ comes from the write itself once the file passes the process's size limit: the program
// ends by it, and the temp file goes with it (any signal that ends the program, not three of them).
TEST(AtomicFile, AFileSizeLimitEndsTheProgramAndLeavesNoTempFile) {
  const fs::path dir = fresh_folder("sigxfsz");
  const fs::path target = dir / "out.csv";
  std::ofstream(target) << "old\n";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{1 << 16, 1 << 16};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomically(target, std::string(1 << 20, 'x'), "test file");
    } catch (...) {}
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << status;
  EXPECT_EQ(read_all(target), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  fs::remove_all(dir);
}

// A signal the program ignores does not end it: the write finishes.
TEST(AtomicFile, AnIgnoredSignalLetsTheWriteFinish) {
  const fs::path dir = fresh_folder("ignored");
  const fs::path target = dir / "out.csv";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1 << 16, 1 << 16};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomically(target, std::string(1 << 20, 'x'), "test file");
    } catch (const InputError&) {
      ::_exit(2);  // the write's EFBIG, as one error
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attnlab
