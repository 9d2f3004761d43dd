// The rungs of the Hopper kernel's ladders (forward and backward) as kernels of their
// own: each has its own --kernel name, written into the results' kernel column, so a
// rung's row never passes for the shipped kernel's; no run takes a rung unless it names it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/io/input_error.hpp"
#include "kernels/kernel_choice.hpp"

namespace attnlab {
namespace {

TEST(WgmmaRung, EachRungIsAKernelWithItsOwnName) {
  std::set<std::string> names;
  for (int rung = 1; rung <= wgmma_sm90::forward_rung_count; ++rung) {
    const std::string name = "wgmma-sm90/rung" + std::to_string(rung);
    const FlashKernel kernel = parse_flash_kernel(name);
    EXPECT_EQ(flash_kernel_info(kernel).rung, rung);
    EXPECT_EQ(kernel_name(Implementation::varlen, kernel), name);
    EXPECT_EQ(kernel_tile(kernel), kernel_tile(FlashKernel::wgmma_sm90));
    names.insert(kernel_name(Implementation::varlen, kernel));
  }
  EXPECT_EQ(names.size(), std::size_t(wgmma_sm90::forward_rung_count));
  EXPECT_FALSE(names.count(kernel_name(Implementation::varlen, FlashKernel::wgmma_sm90)));
  EXPECT_EQ(flash_kernel_info(FlashKernel::wgmma_sm90).rung, 0);
}

TEST(WgmmaRung, NoRunTakesARungUnlessNamed) {
  if (!flash_kernel_built(FlashKernel::wgmma_sm90)) GTEST_SKIP() << "this build has no wgmma-sm90";
  EXPECT_EQ(choose_flash_kernel("", 90), FlashKernel::wgmma_sm90);
  EXPECT_EQ(choose_flash_kernel("", 90, "--kernel", true), FlashKernel::wgmma_sm90);
  EXPECT_EQ(choose_flash_kernel("wgmma-sm90/rung3", 90), FlashKernel::wgmma_sm90_rung3);
}

TEST(WgmmaRung, RungsHaveNoBackward) {
  for (const FlashKernelInfo& k : flash_kernels)
    if (k.rung > 0) {
      EXPECT_FALSE(k.has_backward) << k.name;
    }
  if (!flash_kernel_built(FlashKernel::wgmma_sm90)) GTEST_SKIP() << "this build has no wgmma-sm90";
  try {
    choose_flash_kernel("wgmma-sm90/rung2", 90, "--kernel", true);
    FAIL() << "a rung was taken for a backward";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--kernel: wgmma-sm90/rung2 has no backward pass");
  }
}

TEST(WgmmaRung, AnUnknownRungIsRefusedWithTheNames) {
  try {
    parse_flash_kernel("wgmma-sm90/rung" + std::to_string(wgmma_sm90::forward_rung_count + 1));
    FAIL() << "an unknown rung was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected one of " + flash_kernel_names()), std::string::npos) << e.what();
  }
}

TEST(WgmmaRung, EachBackwardRungIsAKernelWithItsOwnNameAndABackward) {
  std::set<std::string> names;
  for (int rung = 1; rung <= wgmma_sm90::backward_rung_count; ++rung) {
    const std::string name = "wgmma-sm90/bwd-rung" + std::to_string(rung);
    const FlashKernelInfo& k = flash_kernel_info(parse_flash_kernel(name));
    EXPECT_EQ(k.backward_rung, rung);
    EXPECT_EQ(k.rung, 0);
    EXPECT_TRUE(is_rung(k));
    EXPECT_TRUE(k.has_backward);
    EXPECT_FALSE(k.default_backward);
    EXPECT_EQ(k.tile, kernel_tile(FlashKernel::wgmma_sm90));
    names.insert(kernel_name(Implementation::varlen, k.kernel));
  }
  EXPECT_EQ(names.size(), std::size_t(wgmma_sm90::backward_rung_count));
  EXPECT_FALSE(is_rung(flash_kernel_info(FlashKernel::wgmma_sm90)));
  if (!flash_kernel_built(FlashKernel::wgmma_sm90)) GTEST_SKIP() << "this build has no wgmma-sm90";
  EXPECT_EQ(choose_flash_kernel("wgmma-sm90/bwd-rung1", 90, "--kernel", true), FlashKernel::wgmma_sm90_bwd_rung1);
}

TEST(WgmmaRung, TheLastBackwardRungHasTheShippedFeatures) {
  const wgmma_sm90::BackwardRung& first = wgmma_sm90::backward_rungs[0];
  const wgmma_sm90::BackwardRung& last = wgmma_sm90::backward_rungs[wgmma_sm90::backward_rung_count - 1];
  EXPECT_EQ(last.features, wgmma_sm90::shipped_backward_features());
  EXPECT_EQ(wgmma_sm90::describe_features(first.features),
            "dq_bulk_reduce no, warp_specialized no, persistent no, dq_first_store no");
  EXPECT_EQ(wgmma_sm90::describe_features(last.features),
            "dq_bulk_reduce yes, warp_specialized yes, persistent yes, dq_first_store yes");
}

TEST(WgmmaRung, TheLastRungHasTheShippedFeatures) {
  const wgmma_sm90::ForwardRung& last = wgmma_sm90::forward_rungs[wgmma_sm90::forward_rung_count - 1];
  EXPECT_EQ(last.features, wgmma_sm90::shipped_features(wgmma_sm90::ladder_head_dim));
  EXPECT_EQ(wgmma_sm90::describe_features(last.features),
            "kv_stages 2, two_q_buffers yes, counter_schedule yes, overlap_softmax yes, consumer_turns yes");
}

}  // namespace
}  // namespace attnlab
