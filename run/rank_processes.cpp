#include "run/rank_processes.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/io/input_error.hpp"
#include "core/io/program_exit.hpp"

namespace attnlab {

namespace {

// A rank's slot in the shared memory: how its body ended, then its result.
struct SlotHeader {
  int exit_code = 0;
  char message[1024] = {};
};
constexpr std::size_t slot_header_bytes = (sizeof(SlotHeader) + 63) / 64 * 64;

// The shared memory, unmapped however run_rank_processes ends.
class SharedSlots {
 public:
  SharedSlots(int ranks, std::size_t result_bytes)
      : slot_bytes_(slot_header_bytes + (result_bytes + 63) / 64 * 64), bytes_(slot_bytes_ * std::size_t(ranks)) {
    memory_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory_ == MAP_FAILED)
      throw std::runtime_error(std::string("run_rank_processes: mmap: ") + std::strerror(errno));
  }
  ~SharedSlots() { ::munmap(memory_, bytes_); }
  SharedSlots(const SharedSlots&) = delete;
  SharedSlots& operator=(const SharedSlots&) = delete;

  SlotHeader& header(int rank) const { return *static_cast<SlotHeader*>(slot(rank)); }
  void* result(int rank) const { return static_cast<char*>(slot(rank)) + slot_header_bytes; }

 private:
  void* slot(int rank) const { return static_cast<char*>(memory_) + slot_bytes_ * std::size_t(rank); }
  std::size_t slot_bytes_, bytes_;
  void* memory_ = nullptr;
};

// The pipes that carry rank 0's handoff: pipe r - 1 to rank r. Closed however it ends.
class HandoffPipes {
 public:
  explicit HandoffPipes(int ranks) {
    for (int r = 1; r < ranks; ++r) {
      int fds[2];
      if (::pipe(fds) != 0) throw std::runtime_error(std::string("run_rank_processes: pipe: ") + std::strerror(errno));
      fds_.push_back(fds[0]);
      fds_.push_back(fds[1]);
    }
  }
  ~HandoffPipes() { close_all(); }
  HandoffPipes(const HandoffPipes&) = delete;
  HandoffPipes& operator=(const HandoffPipes&) = delete;

  // What rank `rank` keeps (rank 0: every write end; rank r: its read end); the rest are closed.
  std::vector<int> keep_for(int rank) {
    std::vector<int> kept;
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      const bool write_end = i % 2 == 1;
      const int reader = int(i / 2) + 1;
      if ((rank == 0 && write_end) || (!write_end && reader == rank))
        kept.push_back(fds_[i]);
      else
        ::close(fds_[i]);
    }
    fds_.clear();
    return kept;
  }
  void close_all() {
    for (int fd : fds_) ::close(fd);
    fds_.clear();
  }

 private:
  std::vector<int> fds_;
};

int exit_code_of(const std::exception_ptr& error, std::string& message) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    message = e.what();
    return exit_bad_input;
  } catch (const NoGpuError& e) {
    message = e.what();
    return exit_no_gpu;
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "an exception that is not a std::exception";
  }
  return exit_internal_error;
}

[[noreturn]] void run_child(int rank, int ranks, HandoffPipes& pipes, SharedSlots& slots,
                            const std::function<void(RankContext&)>& body) {
  SlotHeader& header = slots.header(rank);
  try {
    RankContext context(rank, ranks, pipes.keep_for(rank), slots.result(rank));
    body(context);
  } catch (...) {
    std::string message;
    header.exit_code = exit_code_of(std::current_exception(), message);
    std::snprintf(header.message, sizeof header.message, "%s", message.c_str());
  }
  std::fflush(nullptr);
  ::_exit(header.exit_code);  // no exit handlers: they belong to the parent
}

[[noreturn]] void throw_rank_error(int rank, const SlotHeader& header, int status) {
  std::string message = header.message;
  if (WIFSIGNALED(status)) message = "ended by signal " + std::to_string(WTERMSIG(status));
  if (message.empty()) message = "exited with code " + std::to_string(WEXITSTATUS(status));
  message = "rank " + std::to_string(rank) + ": " + message;
  if (header.exit_code == exit_bad_input) throw InputError(message);
  if (header.exit_code == exit_no_gpu) throw NoGpuError(message);
  throw std::runtime_error(message);
}

}  // namespace

RankContext::RankContext(int rank, int ranks, std::vector<int> handoff_fds, void* result)
    : rank_(rank), ranks_(ranks), handoff_fds_(std::move(handoff_fds)), result_(result) {}

void RankContext::share_from_rank0(void* data, std::size_t bytes) {
  char* at = static_cast<char*>(data);
  for (int fd : handoff_fds_) {
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t n = rank_ == 0 ? ::write(fd, at + done, bytes - done) : ::read(fd, at + done, bytes - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("rank 0 ended before it passed its value to the other ranks");
      done += std::size_t(n);
    }
  }
}

std::vector<std::byte> run_rank_processes(int ranks, std::size_t result_bytes,
                                          const std::function<void(RankContext&)>& body) {
  if (ranks < 1) throw std::invalid_argument("run_rank_processes: at least one rank");
  SharedSlots slots(ranks, result_bytes);
  HandoffPipes pipes(ranks);
  std::fflush(nullptr);  // a child's copy of an unflushed buffer would print twice
  std::vector<pid_t> pids;
  for (int rank = 0; rank < ranks; ++rank) {
    const pid_t pid = ::fork();
    if (pid == 0) run_child(rank, ranks, pipes, slots, body);
    if (pid < 0) {
      for (pid_t p : pids) ::kill(p, SIGTERM);
      for (pid_t p : pids) ::waitpid(p, nullptr, 0);
      throw std::runtime_error(std::string("run_rank_processes: fork: ") + std::strerror(errno));
    }
    pids.push_back(pid);
  }
  pipes.close_all();  // the handoff's ends live in the children alone, so a reader sees rank 0's end
  int failed = -1, failed_status = 0;
  for (std::size_t left = pids.size(); left > 0; --left) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    while (pid < 0 && errno == EINTR) pid = ::waitpid(-1, &status, 0);
    if (pid < 0) throw std::runtime_error(std::string("run_rank_processes: waitpid: ") + std::strerror(errno));
    const auto it = std::find(pids.begin(), pids.end(), pid);
    if (it == pids.end()) {
      ++left;  // not one of ours
      continue;
    }
    const int rank = int(it - pids.begin());
    *it = 0;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && failed < 0) {
      failed = rank;
      failed_status = status;
      for (pid_t p : pids)
        if (p > 0) ::kill(p, SIGTERM);
    }
  }
  if (failed >= 0) throw_rank_error(failed, slots.header(failed), failed_status);
  std::vector<std::byte> results(result_bytes * std::size_t(ranks));
  for (int rank = 0; rank < ranks; ++rank)
    std::memcpy(results.data() + result_bytes * std::size_t(rank), slots.result(rank), result_bytes);
  return results;
}

}  // namespace attnlab
