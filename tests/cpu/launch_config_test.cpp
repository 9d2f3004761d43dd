// The launch configuration of the flash kernel on each architecture attnlab builds
// for, computed on the host from published limits (no GPU): CTAs per SM, what
// limits them, the opt-in, and a kernel that cannot launch.
#include "kernels/common/launch_config.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/io/input_error.hpp"

namespace attnlab {
namespace {

constexpr int KB = 1024;

// The flash kernel per CTA (kernels/mma_sm80/forward_kernel.cuh): 4 warps; two Q, two K and two V
// tiles of 64 rows x D 16-bit elements in dynamic shared memory; `registers` per thread
// (by default what ptxas gives the sm_90 code, which an H100 runs under ATTNLAB_LAUNCH_AS too).
KernelNeeds flash_needs(int head_dim, int registers = 0) {
  return {"mma-sm80 bf16 d" + std::to_string(head_dim), 128,
          registers        ? registers
          : head_dim == 64 ? 189
                           : 245,
          0, (2 * 64 + 4 * 64) * head_dim * 2};
}

DeviceLimits gpu(int compute_capability, int sms) {
  DeviceLimits d = architecture_limits(compute_capability).value();
  d.sm_count = sms;
  return d;
}

TEST(LaunchConfig, ArchitectureLimitsAreThePublishedSharedMemorySizes) {
  const struct {
    int cc, per_sm_kb, optin_kb;
  } published[] = {{80, 164, 163}, {86, 100, 99}, {89, 100, 99}, {90, 228, 227}};
  for (const auto& p : published) {
    SCOPED_TRACE(p.cc);
    const DeviceLimits d = architecture_limits(p.cc).value();
    EXPECT_EQ(d.compute_capability, p.cc);
    EXPECT_EQ(d.shared_per_sm, p.per_sm_kb * KB);
    EXPECT_EQ(d.shared_per_block_optin, p.optin_kb * KB);
    EXPECT_EQ(d.shared_per_block, 48 * KB);
  }
  EXPECT_FALSE(architecture_limits(75).has_value());
  EXPECT_FALSE(architecture_limits(100).has_value());
}

struct Expected {
  int cc, sms, head_dim, registers, ctas_per_sm;
  bool opt_in;
  const char* limited_by;
};

// Registers as ptxas reported them for the bf16 kernel of this build on each
// architecture (-Xptxas=-v). By hand: a CTA takes its dynamic shared memory + 1 KB
// reserved (D=64: 49 KB, D=128: 97 KB); 187 to 189 registers round up to 6144 per warp,
// 244 to 246 to 7936, so a 16 K-register sub-partition holds 2 warps either way: 8
// warps, 2 CTAs of 4 warps per SM.
const Expected flash_on_each_architecture[] = {
    {80, 108, 64, 187, 2, false, "registers"},                   // A100: 164 KB holds 3 x 49 KB
    {80, 108, 128, 246, 1, true, "shared memory"},               // 164 KB holds 1 x 97 KB
    {86, 82, 64, 187, 2, false, "shared memory and registers"},  // RTX 3090: 100 KB holds 2 x 49 KB
    {86, 82, 128, 244, 1, true, "shared memory"},
    {89, 128, 64, 187, 2, false, "shared memory and registers"},  // RTX 4090
    {89, 128, 128, 244, 1, true, "shared memory"},
    {90, 132, 64, 189, 2, false, "registers"},                    // H100: 228 KB holds 4 x 49 KB
    {90, 132, 128, 245, 2, true, "shared memory and registers"},  // 228 KB holds 2 x 97 KB
};

TEST(LaunchConfig, FlashKernelOnEachArchitecture) {
  for (const Expected& e : flash_on_each_architecture) {
    SCOPED_TRACE("sm_" + std::to_string(e.cc) + " d" + std::to_string(e.head_dim));
    const KernelNeeds needs = flash_needs(e.head_dim, e.registers);
    const LaunchConfig c = choose_launch(gpu(e.cc, e.sms), needs);
    EXPECT_EQ(c.dynamic_shared, needs.dynamic_shared);
    EXPECT_EQ(c.opt_in, e.opt_in);
    EXPECT_EQ(c.shared_per_cta, e.head_dim == 64 ? 49 * KB : 97 * KB);
    EXPECT_EQ(c.ctas_per_sm, e.ctas_per_sm);
    EXPECT_EQ(c.resident_ctas, e.ctas_per_sm * e.sms);
    EXPECT_EQ(c.limited_by, e.limited_by);
  }
}

TEST(LaunchConfig, FewerRegistersLeaveSharedMemoryAndThreadsAsTheLimits) {
  KernelNeeds needs = flash_needs(64);
  needs.registers = 64;  // 2048 per warp: 8 warps per sub-partition, 8 CTAs of 4 warps
  EXPECT_EQ(choose_launch(gpu(90, 132), needs).ctas_per_sm, 4);  // 228 KB / 49 KB
  const LaunchConfig on_sm86 = choose_launch(gpu(86, 82), needs);
  EXPECT_EQ(on_sm86.ctas_per_sm, 2);  // 100 KB / 49 KB
  EXPECT_EQ(on_sm86.limited_by, "shared memory");
  needs.dynamic_shared = 0;
  const LaunchConfig no_shared = choose_launch(gpu(86, 82), needs);
  EXPECT_EQ(no_shared.ctas_per_sm, 8);  // registers (32 warps) and 1536 threads (12 CTAs): registers
  EXPECT_EQ(no_shared.limited_by, "registers");
}

std::string launch_error(const DeviceLimits& d, const KernelNeeds& k) {
  try {
    choose_launch(d, k);
  } catch (const NoGpuError& e) {
    return e.what();
  }
  return "";
}

TEST(LaunchConfig, AKernelThatDoesNotFitSaysWhatItNeedsAndWhatTheGpuAllows) {
  KernelNeeds d256 = flash_needs(128);
  d256.name = "mma-sm80 bf16 d256";
  d256.dynamic_shared = (2 * 64 + 4 * 64) * 256 * 2;  // 192 KB: more than sm_86 allows a CTA
  EXPECT_EQ(launch_error(gpu(86, 82), d256),
            "mma-sm80 bf16 d256 cannot launch on this GPU: it needs 196608 bytes of shared memory per CTA, the GPU "
            "allows 101376");
  EXPECT_NO_THROW(choose_launch(gpu(90, 132), d256));  // 227 KB on an H100

  KernelNeeds wide = flash_needs(64);
  wide.threads = 2048;
  EXPECT_EQ(launch_error(gpu(80, 108), wide),
            "mma-sm80 bf16 d64 cannot launch on this GPU: it needs 2048 threads per CTA, the GPU allows 1024");

  KernelNeeds heavy = flash_needs(64);
  heavy.threads = 1024;
  heavy.registers = 128;  // 32 warps x 4096 registers = 128 K: twice a CTA's 64 K
  EXPECT_EQ(launch_error(gpu(90, 132), heavy),
            "mma-sm80 bf16 d64 cannot launch on this GPU: it needs 128 registers per thread for 1024 threads, the GPU "
            "allows 65536 registers per CTA");
}

TEST(LaunchConfig, LaunchAsCapsTheDeviceLimitsByTheNamedArchitecture) {
  const DeviceLimits h100 = gpu(90, 132);
  EXPECT_EQ(limits_for_launch(h100, nullptr).shared_per_sm, h100.shared_per_sm);
  EXPECT_EQ(limits_for_launch(h100, "").shared_per_sm, h100.shared_per_sm);

  const DeviceLimits as86 = limits_for_launch(h100, "sm_86");
  EXPECT_EQ(as86.compute_capability, 90);  // the code that runs is still the H100's
  EXPECT_EQ(as86.sm_count, 132);
  EXPECT_EQ(as86.shared_per_sm, 100 * KB);
  EXPECT_EQ(as86.shared_per_block_optin, 99 * KB);
  EXPECT_EQ(as86.threads_per_sm, 1536);
  EXPECT_EQ(as86.blocks_per_sm, 16);
  const LaunchConfig c = choose_launch(as86, flash_needs(128));
  EXPECT_EQ(c.ctas_per_sm, 1);
  EXPECT_EQ(c.resident_ctas, 132);
  EXPECT_EQ(describe_launch(as86, flash_needs(128), c),
            "mma-sm80 bf16 d128: 1 CTA per SM (limited by shared memory), 132 resident on 132 SMs; "
            "a CTA: 128 threads x "
            "245 registers, 97 KB of the SM's 100 KB shared memory");

  // A larger architecture's limits never raise a smaller GPU's.
  const DeviceLimits a10 = gpu(86, 72);
  EXPECT_EQ(limits_for_launch(a10, "sm_90").shared_per_sm, 100 * KB);
  EXPECT_EQ(limits_for_launch(a10, "sm_90").threads_per_sm, 1536);

  for (const char* bad : {"sm_75", "86", "sm86", "sm_8", "sm_860", "SM_86"}) {
    SCOPED_TRACE(bad);
    try {
      limits_for_launch(h100, bad);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("ATTNLAB_LAUNCH_AS: expected sm_80, sm_86, sm_89 or sm_90, got '") + bad + "'");
    }
  }
}

TEST(LaunchConfig, RecordsAreHandedOutOnceInOrder) {
  take_launch_records();
  record_launch("first");
  record_launch("second");
  EXPECT_EQ(take_launch_records(), (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(take_launch_records().empty());
}

}  // namespace
}  // namespace attnlab
