#include "run/rank_processes.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/io/input_error.hpp"

namespace attnlab {
namespace {

struct Seen {
  int rank = -1, ranks = 0;
  char shared[16] = {};
};

TEST(RankProcesses, EveryRankRunsInItsOwnProcessAndGetsRankZerosValue) {
  const int parent = ::getpid();
  const std::vector<std::byte> results = run_rank_processes(3, sizeof(Seen) + sizeof(int), [&](RankContext& c) {
    Seen seen{c.rank(), c.ranks(), {}};
    if (c.rank() == 0) std::strcpy(seen.shared, "from rank 0");
    c.share_from_rank0(seen.shared, sizeof seen.shared);
    const int pid = ::getpid();
    std::memcpy(c.result(), &seen, sizeof seen);
    std::memcpy(static_cast<char*>(c.result()) + sizeof seen, &pid, sizeof pid);
  });
  ASSERT_EQ(results.size(), 3 * (sizeof(Seen) + sizeof(int)));
  std::vector<int> pids;
  for (int r = 0; r < 3; ++r) {
    Seen seen;
    int pid = 0;
    const std::byte* at = results.data() + r * (sizeof(Seen) + sizeof(int));
    std::memcpy(&seen, at, sizeof seen);
    std::memcpy(&pid, at + sizeof seen, sizeof pid);
    EXPECT_EQ(seen.rank, r);
    EXPECT_EQ(seen.ranks, 3);
    EXPECT_STREQ(seen.shared, "from rank 0");
    EXPECT_NE(pid, parent);
    for (int other : pids) EXPECT_NE(pid, other);
    pids.push_back(pid);
  }
}

// The others would wait forever (as in a collective the failed rank never joins): they are
// stopped, and the failed rank's error comes back as its own type.
TEST(RankProcesses, TheFirstFailingRanksErrorStopsTheOthers) {
  try {
    run_rank_processes(3, 0, [](RankContext& c) {
      if (c.rank() == 2) throw NoGpuError("no GPU for this rank");
      for (;;) ::pause();
    });
    ADD_FAILURE() << "no error";
  } catch (const NoGpuError& e) {
    EXPECT_STREQ(e.what(), "rank 2: no GPU for this rank");
  }
  EXPECT_THROW(run_rank_processes(2, 0,
                                  [](RankContext& c) {
                                    if (c.rank() == 1) throw InputError("bad input");
                                  }),
               InputError);
  EXPECT_THROW(run_rank_processes(0, 0, [](RankContext&) {}), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab
