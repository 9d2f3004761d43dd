#pragma once
// The four implementations a run compares: points in the (implementation x layout) grid.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layout.hpp"

namespace attnlab {

enum class Implementation { naive, padded, packed, varlen };

inline constexpr std::array<Implementation, 4> all_implementations = {Implementation::naive, Implementation::padded,
                                                                      Implementation::packed, Implementation::varlen};

inline const char* implementation_name(Implementation i) {
  switch (i) {
    case Implementation::naive: return "naive";
    case Implementation::padded: return "padded";
    case Implementation::packed: return "packed";
    case Implementation::varlen: return "varlen";
  }
  return "?";
}

inline std::optional<Implementation> parse_implementation(std::string_view name) {
  for (Implementation i : all_implementations)
    if (name == implementation_name(i)) return i;
  return std::nullopt;
}

// A comma-separated list of implementation names, each kept once in the order given;
// throws InputError naming `flag` for an unknown name or an empty list.
std::vector<Implementation> parse_implementation_list(std::string_view text, std::string_view flag);

// Where the tokens sit for each implementation.
inline LayoutKind layout_of(Implementation i) {
  switch (i) {
    case Implementation::naive:
    case Implementation::padded: return LayoutKind::padded;
    case Implementation::packed: return LayoutKind::packed;
    case Implementation::varlen: return LayoutKind::varlen;
  }
  return LayoutKind::varlen;
}

// naive materializes the whole score matrix: one tile as large as the padded row.
inline bool materializes_scores(Implementation i) { return i == Implementation::naive; }

}  // namespace attnlab
