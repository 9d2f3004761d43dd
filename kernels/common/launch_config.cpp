#include "kernels/common/launch_config.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <mutex>
#include <utility>

#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

// Allocation rules of sm_80 and newer (the CUDA occupancy calculator's).
constexpr int warp_size = 32;
constexpr int register_unit = 256;  // registers are handed to a warp in units of 256
constexpr int sub_partitions = 4;   // an SM's register file is split in four; a warp lives in one
constexpr int max_registers_per_thread = 255;
constexpr int shared_unit = 128;  // shared memory is handed to a CTA in units of 128 bytes

int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

std::string kilobytes(int bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%g KB", bytes / 1024.0);
  return text;
}

[[noreturn]] void cannot_launch(const KernelNeeds& k, const std::string& why) {
  throw NoGpuError(k.name + " cannot launch on this GPU: " + why);
}

}  // namespace

LaunchConfig choose_launch(const DeviceLimits& d, const KernelNeeds& k) {
  const int warps = (k.threads + warp_size - 1) / warp_size;
  if (k.threads < 1 || k.threads > d.threads_per_block)
    cannot_launch(k, "it needs " + std::to_string(k.threads) + " threads per CTA, the GPU allows " +
                         std::to_string(d.threads_per_block));
  const int shared = k.static_shared + k.dynamic_shared;
  if (shared > d.shared_per_block_optin)
    cannot_launch(k, "it needs " + std::to_string(shared) + " bytes of shared memory per CTA, the GPU allows " +
                         std::to_string(d.shared_per_block_optin));
  const int registers_per_warp = round_up(k.registers * warp_size, register_unit);
  // The hardware checks a CTA's registers as if its warps filled all four sub-partitions evenly.
  if (k.registers > max_registers_per_thread ||
      registers_per_warp * round_up(warps, sub_partitions) > d.registers_per_block)
    cannot_launch(k, "it needs " + std::to_string(k.registers) + " registers per thread for " +
                         std::to_string(k.threads) + " threads, the GPU allows " +
                         std::to_string(d.registers_per_block) + " registers per CTA");

  LaunchConfig c;
  c.dynamic_shared = k.dynamic_shared;
  c.opt_in = shared > d.shared_per_block;
  c.shared_per_cta = round_up(shared + d.shared_reserved_per_block, shared_unit);
  const std::pair<const char*, int> limits[] = {
      {"shared memory", d.shared_per_sm / c.shared_per_cta},
      {"registers", registers_per_warp == 0
                        ? INT_MAX
                        : d.registers_per_sm / sub_partitions / registers_per_warp * sub_partitions / warps},
      {"threads", d.threads_per_sm / warp_size / warps},
      {"CTA slots", d.blocks_per_sm},
  };
  c.ctas_per_sm = INT_MAX;
  for (const auto& [name, ctas] : limits) c.ctas_per_sm = std::min(c.ctas_per_sm, ctas);
  for (const auto& [name, ctas] : limits)
    if (ctas == c.ctas_per_sm) c.limited_by += (c.limited_by.empty() ? "" : " and ") + std::string(name);
  if (c.ctas_per_sm == 0)
    cannot_launch(k, "not one CTA fits on a multiprocessor (" + c.limited_by + ": " + std::to_string(c.shared_per_cta) +
                         " bytes of shared memory of " + std::to_string(d.shared_per_sm) + ", " +
                         std::to_string(registers_per_warp * warps) + " registers of " +
                         std::to_string(d.registers_per_sm) + ", " + std::to_string(k.threads) + " threads of " +
                         std::to_string(d.threads_per_sm) + ")");
  c.resident_ctas = c.ctas_per_sm * d.sm_count;
  return c;
}

std::string describe_launch(const DeviceLimits& d, const KernelNeeds& k, const LaunchConfig& c) {
  return k.name + ": " + std::to_string(c.ctas_per_sm) + (c.ctas_per_sm == 1 ? " CTA" : " CTAs") +
         " per SM (limited by " + c.limited_by + "), " + std::to_string(c.resident_ctas) + " resident on " +
         std::to_string(d.sm_count) + " SMs; a CTA: " + std::to_string(k.threads) + " threads x " +
         std::to_string(k.registers) + " registers, " + kilobytes(c.shared_per_cta) + " of the SM's " +
         kilobytes(d.shared_per_sm) + " shared memory";
}

std::optional<DeviceLimits> architecture_limits(int cc) {
  // Common to sm_80..sm_90: 64 K registers per SM and per CTA, 1024 threads and 48 KB
  // of shared memory per CTA without opting in, 1 KB of it reserved per CTA.
  DeviceLimits d;
  d.compute_capability = cc;
  d.shared_per_block = 48 * 1024;
  d.shared_reserved_per_block = 1024;
  d.registers_per_sm = d.registers_per_block = 64 * 1024;
  d.threads_per_block = 1024;
  const auto set = [&](int shared_sm_kb, int optin_kb, int threads_per_sm, int blocks_per_sm) {
    d.shared_per_sm = shared_sm_kb * 1024;
    d.shared_per_block_optin = optin_kb * 1024;
    d.threads_per_sm = threads_per_sm;
    d.blocks_per_sm = blocks_per_sm;
    return d;
  };
  switch (cc) {
    case 80: return set(164, 163, 2048, 32);
    case 86: return set(100, 99, 1536, 16);
    case 89: return set(100, 99, 1536, 24);
    case 90: return set(228, 227, 2048, 32);
    default: return std::nullopt;
  }
}

DeviceLimits limits_for_launch(const DeviceLimits& device, const char* launch_as) {
  if (!launch_as || !*launch_as) return device;
  const std::string value = launch_as;
  std::optional<DeviceLimits> as;
  if (value.size() == 5 && value.rfind("sm_", 0) == 0 && std::isdigit(static_cast<unsigned char>(value[3])) &&
      std::isdigit(static_cast<unsigned char>(value[4])))
    as = architecture_limits(std::stoi(value.substr(3)));
  if (!as)
    throw InputError(std::string(launch_as_variable) + ": expected sm_80, sm_86, sm_89 or sm_90, got '" + value + "'");
  DeviceLimits d = device;
  const auto cap = [](int& limit, int other) { limit = std::min(limit, other); };
  cap(d.shared_per_sm, as->shared_per_sm);
  cap(d.shared_per_block, as->shared_per_block);
  cap(d.shared_per_block_optin, as->shared_per_block_optin);
  cap(d.registers_per_sm, as->registers_per_sm);
  cap(d.registers_per_block, as->registers_per_block);
  cap(d.threads_per_sm, as->threads_per_sm);
  cap(d.threads_per_block, as->threads_per_block);
  cap(d.blocks_per_sm, as->blocks_per_sm);
  return d;
}

namespace {
std::mutex records_mutex;
std::vector<std::string> records;
}  // namespace

void record_launch(std::string line) {
  const std::lock_guard<std::mutex> lock(records_mutex);
  records.push_back(std::move(line));
}

std::vector<std::string> take_launch_records() {
  const std::lock_guard<std::mutex> lock(records_mutex);
  return std::exchange(records, {});
}

}  // namespace attnlab
