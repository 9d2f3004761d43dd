#pragma once
// The environment variable that runs a rung of the Hopper forward kernel's ladder in
// place of the shipped kernel: ATTNLAB_WGMMA_RUNG=3 `attnlab run ... --kernel wgmma-sm90`.
// Read by the launcher at each launch (flash_wgmma_launch.cuh).
#include <charconv>
#include <optional>
#include <string>

#include "core/input_error.hpp"
#include "kernels/hopper/flash_wgmma_rungs.hpp"

namespace attnlab::hopper {

inline constexpr const char* wgmma_rung_variable = "ATTNLAB_WGMMA_RUNG";

inline std::string rung_range() { return "1 to " + std::to_string(forward_rung_count); }

// The rung that `value` (the variable's value) names, from 1; nullopt when it is
// unset or empty: the shipped kernel. Throws InputError naming the variable and the
// range on anything but a rung's number.
inline std::optional<int> forward_rung_of(const char* value) {
  if (!value || !*value) return std::nullopt;
  const std::string text = value;
  int rung = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rung);
  if (error != std::errc() || end != text.data() + text.size() || rung < 1 || rung > forward_rung_count)
    throw InputError(std::string(wgmma_rung_variable) + ": expected a rung of wgmma-sm90's ladder from " +
                     rung_range() + " (unset: the shipped kernel), got '" + printable(text) + "'");
  return rung;
}

// The rungs are built for the ladder's configuration only; `instance` ("fp16 d64") is
// what the run asked for instead.
inline InputError rung_not_built(int rung, const std::string& instance) {
  return InputError(std::string(wgmma_rung_variable) + "=" + std::to_string(rung) + ": the ladder's rungs " +
                    rung_range() + " are built for bf16 d" + std::to_string(ladder_head_dim) + " only, not " +
                    instance + " (unset: the shipped kernel)");
}

// One line for the log when a rung runs: which, what it adds, its features.
inline std::string rung_announcement(int rung) {
  const ForwardRung& r = forward_rungs[rung - 1];
  return "wgmma-sm90 ladder rung " + std::to_string(rung) + " of " + std::to_string(forward_rung_count) + " (" +
         wgmma_rung_variable + "), adds: " + r.idea + "; " + describe_features(r.features);
}

}  // namespace attnlab::hopper
