// The atomic writer against the signals that end a program mid-write beyond kill's SIGTERM:
// a closed pipe's SIGPIPE, raised in another thread of the writer by a write to a pipe whose
// reader is gone (`attnlab ... | head` exiting), and a timer's SIGALRM. Each ends the writer by
// that signal, the target keeps its old text, and no `<out>.XXXXXX` is left beside it.
#include <gtest/gtest.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "tests/cpu/test_folder.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

class AtomicFileSignals : public TestFolder {
 protected:
  AtomicFileSignals() : TestFolder("attnlab_atomic_signals_") {}

  // In a child process, with `signal` at its default action: writes 256 MiB over `target`
  // (holding "old\n") and, from a second thread, calls `trigger` once text is in the temp file
  // (the writer registers the file for its handlers before it writes). Returns the child's wait
  // status; exit 3: the write ended before the temp file was seen.
  int status_of_a_write_interrupted_by(int signal, const std::function<void()>& trigger) {
    target = dir_ / "out.csv";
    std::ofstream(target) << "old\n";
    const pid_t child = ::fork();
    if (child == 0) {
      std::signal(signal, SIG_DFL);  // whatever the test runner set, as a program starts
      std::atomic<bool> done{false};
      std::thread watcher([&] {
        while (!done) {
          for (const auto& e : fs::directory_iterator(dir_)) {
            std::error_code gone;
            if (e.path() != target && fs::file_size(e.path(), gone) > 0 && !gone) {
              trigger();
              return;
            }
          }
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      });
      try {
        write_file_atomically(target, std::string(std::size_t{1} << 28, 'x'), "test file");
      } catch (...) {}
      done = true;
      watcher.join();
      ::_exit(3);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return status;
  }

  void expect_ended_by(int status, int signal) const {
    ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << "the write finished before it could be signalled";
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;
    std::ifstream in(target);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "old\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1) << "a temp file is left";
  }

  fs::path target;
};

TEST_F(AtomicFileSignals, AClosedPipeEndsTheWriterAndLeavesNoTempFile) {
  const int status = status_of_a_write_interrupted_by(SIGPIPE, [] {
    int ends[2];
    if (::pipe(ends) != 0) return;
    ::close(ends[0]);  // the reader is gone
    const char byte = 'x';
    [[maybe_unused]] const ssize_t n = ::write(ends[1], &byte, 1);
  });
  expect_ended_by(status, SIGPIPE);
}

TEST_F(AtomicFileSignals, ATimerEndsTheWriterAndLeavesNoTempFile) {
  const int status = status_of_a_write_interrupted_by(SIGALRM, [] {
    const itimerval soon{{0, 0}, {0, 1000}};  // once, a millisecond from now
    ::setitimer(ITIMER_REAL, &soon, nullptr);
    std::this_thread::sleep_for(std::chrono::seconds(10));  // the signal ends the program first
  });
  expect_ended_by(status, SIGALRM);
}

}  // namespace
}  // namespace attnlab
