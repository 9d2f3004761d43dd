// ATTNLAB_WGMMA_RUNG, the variable that runs a rung of the Hopper forward kernel's
// ladder: which values name a rung, and the one-line message for the rest.
#include "kernels/hopper/flash_wgmma_rung_variable.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attnlab::hopper {
namespace {

std::string message_for(const char* value) {
  try {
    forward_rung_of(value);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(WgmmaRung, UnsetOrEmptyIsTheShippedKernel) {
  EXPECT_FALSE(forward_rung_of(nullptr).has_value());
  EXPECT_FALSE(forward_rung_of("").has_value());
}

TEST(WgmmaRung, EachRungByItsNumber) {
  for (int rung = 1; rung <= forward_rung_count; ++rung)
    EXPECT_EQ(forward_rung_of(std::to_string(rung).c_str()), rung);
  EXPECT_EQ(forward_rung_of("03"), 3);
}

TEST(WgmmaRung, OutOfRangeNamesTheVariableAndTheRange) {
  const std::string last = std::to_string(forward_rung_count);
  for (const std::string bad :
       {std::string("0"), std::to_string(forward_rung_count + 1), std::string("99999999999999999999")}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(message_for(bad.c_str()), "ATTNLAB_WGMMA_RUNG: expected a rung of wgmma-sm90's ladder from 1 to " + last +
                                            " (unset: the shipped kernel), got '" + bad + "'");
  }
}

TEST(WgmmaRung, GarbageIsRefusedOnOnePrintableLine) {
  for (const char* bad : {"abc", "3x", " 3", "-1", "+2", "2.0"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(message_for(bad), "ATTNLAB_WGMMA_RUNG: expected a rung of wgmma-sm90's ladder from 1 to " +
                                    std::to_string(forward_rung_count) + " (unset: the shipped kernel), got '" + bad +
                                    "'");
  }
  const std::string shown = message_for("2\n\x1b[31m");
  EXPECT_EQ(shown.find('\n'), std::string::npos);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos);
  EXPECT_NE(shown.find("got '2\\n\\x1b[31m'"), std::string::npos) << shown;
}

TEST(WgmmaRung, AnotherDtypeOrHeadDimIsRefused) {
  EXPECT_EQ(std::string(rung_not_built(2, "fp16 d64").what()),
            "ATTNLAB_WGMMA_RUNG=2: the ladder's rungs 1 to " + std::to_string(forward_rung_count) +
                " are built for bf16 d128 only, not fp16 d64 (unset: the shipped kernel)");
}

TEST(WgmmaRung, TheAnnouncementNamesTheRungAndItsFeatures) {
  EXPECT_EQ(rung_announcement(1),
            "wgmma-sm90 ladder rung 1 of " + std::to_string(forward_rung_count) + " (ATTNLAB_WGMMA_RUNG), adds: " +
                forward_rungs[0].idea +
                "; kv_stages 1, two_q_buffers no, counter_schedule no, overlap_softmax no, consumer_turns no");
  EXPECT_NE(rung_announcement(forward_rung_count)
                .find("kv_stages 2, two_q_buffers yes, counter_schedule yes, overlap_softmax yes, consumer_turns yes"),
            std::string::npos);
}

}  // namespace
}  // namespace attnlab::hopper
