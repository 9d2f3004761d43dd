#include "core/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>

#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

InputError cannot_write(const std::filesystem::path& path, std::string_view what, const std::string& why) {
  return InputError(printable(path.string(), 4096) + ": cannot write the " + std::string(what) + " (" + why + ")");
}

// The temp file being written, removed by a signal that ends the program before the rename:
// a signal handler may only unlink a path already in static storage.
char pending_temp[4096];
std::atomic<bool> temp_pending{false};

// The signals whose default action ends the program and that may come while a file is being
// written: a terminal's ^C, kill, a closed pipe, a CPU or file-size limit (SIGXFSZ comes
// from the write itself), a timer, the user and real-time signals. Faults (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS) are attnlab's own bugs, left to the sanitizers and
// the core dump.
sigset_t cleanup_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM,
                SIGPROF, SIGIO})
    sigaddset(&set, s);
#ifdef SIGPWR
  sigaddset(&set, SIGPWR);
#endif
#ifdef SIGSTKFLT
  sigaddset(&set, SIGSTKFLT);
#endif
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) sigaddset(&set, s);
  return set;
}

extern "C" void remove_pending_temp(int signal) {
  if (temp_pending.load()) ::unlink(pending_temp);
  std::signal(signal, SIG_DFL);
  std::raise(signal);  // delivered when the handler returns: the default action ends the program
}

// Holds the temp file's path for the handler while one write is under way (one writer per
// process at a time). Only signals left at their default action are taken over: one the
// program ignores or handles itself does not end it, so the write goes on and finishes.
class PendingTemp {
 public:
  PendingTemp(const std::string& temp, const sigset_t& signals) {
    std::memcpy(pending_temp, temp.c_str(), temp.size() + 1);
    struct sigaction cleanup {};
    cleanup.sa_handler = remove_pending_temp;
    sigemptyset(&cleanup.sa_mask);
    for (int s = 1; s < NSIG; ++s) {
      struct sigaction current {};
      if (sigismember(&signals, s) != 1 || ::sigaction(s, nullptr, &current) != 0) continue;
      if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL) continue;
      if (::sigaction(s, &cleanup, &previous_[s]) == 0) taken_[s] = true;
    }
    temp_pending.store(true);
  }
  ~PendingTemp() {
    temp_pending.store(false);
    for (int s = 1; s < NSIG; ++s)
      if (taken_[s]) ::sigaction(s, &previous_[s], nullptr);
  }
  PendingTemp(const PendingTemp&) = delete;
  PendingTemp& operator=(const PendingTemp&) = delete;

 private:
  struct sigaction previous_[NSIG] = {};
  bool taken_[NSIG] = {};
};

// The mode the written file gets: an existing target's permissions (never its setuid, setgid
// or sticky bit: a results file is no program), else what a new file gets under the umask.
mode_t mode_for(const std::filesystem::path& path) {
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0) return existing.st_mode & 0777;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

void check_replaceable_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path, ec);  // the link itself, not what it points to
  if (ec && ec != std::errc::no_such_file_or_directory) throw cannot_write(path, what, ec.message());
  switch (status.type()) {
    case std::filesystem::file_type::not_found:
    case std::filesystem::file_type::regular: return;
    case std::filesystem::file_type::directory: throw cannot_write(path, what, "it is a folder");
    case std::filesystem::file_type::symlink:
      throw cannot_write(path, what, "it is a symbolic link, which would be replaced; name the file it points to");
    default: throw cannot_write(path, what, "it exists and is not a regular file (a device, FIFO or socket)");
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text, std::string_view what) {
  check_replaceable_file(path, what);
  const auto fail = [&](const std::string& why) { return cannot_write(path, what, why); };
  // A fresh name beside the target, created exclusively: nothing planted there (a symlink, a
  // file of another user) is followed or reused, and the rename stays inside one file system.
  std::string temp = path.string() + ".XXXXXX";
  if (temp.size() >= sizeof(pending_temp)) throw fail("the path is too long");
  const mode_t mode = mode_for(path);
  // The cleanup signals wait while the file is created and registered, so none can leave it behind.
  const sigset_t cleanup = cleanup_signals();
  sigset_t previous;
  ::pthread_sigmask(SIG_BLOCK, &cleanup, &previous);
  const int fd = ::mkstemp(temp.data());
  const int create_errno = errno;
  std::optional<PendingTemp> pending;
  if (fd >= 0) pending.emplace(temp, cleanup);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0) throw fail(std::strerror(create_errno));
  const bool written = write_all(fd, text) && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  const int saved = errno;
  if (::close(fd) != 0 || !written) {
    ::unlink(temp.c_str());
    throw fail(std::string("writing ") + printable(temp, 4096) + " failed: " + std::strerror(written ? errno : saved));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw fail(why);
  }
}

}  // namespace attnlab
