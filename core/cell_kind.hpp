#pragma once
#include <cstdint>

#include "core/host_device.hpp"

namespace attnlab {

// Why a (query, key) cell of a score matrix is, or is not, part of the answer.
enum class CellKind : std::uint8_t {
  useful,         // same document, visible under the causal rule
  causal_masked,  // computed inside a visited tile, then masked because the key is in the future
  padding,        // a pad query or pad key (also tile overhang past a sequence's end)
  bleed,          // a key of another document in the same packed row
  not_visited,    // inside a tile the kernel skips altogether
};

inline constexpr int cell_kind_count = 5;

inline const char* cell_kind_name(CellKind kind) {
  switch (kind) {
    case CellKind::useful: return "useful";
    case CellKind::causal_masked: return "causal_masked";
    case CellKind::padding: return "padding";
    case CellKind::bleed: return "bleed";
    case CellKind::not_visited: return "not_visited";
  }
  return "?";
}

// Cells of each kind in some region of a score matrix (one tile, one row, a whole layout).
struct CellCounts {
  std::int64_t useful = 0;
  std::int64_t causal_masked = 0;
  std::int64_t padding = 0;
  std::int64_t bleed = 0;

  ATTNLAB_HD std::int64_t computed() const { return useful + causal_masked + padding + bleed; }
  ATTNLAB_HD CellCounts& operator+=(const CellCounts& o) {
    useful += o.useful;
    causal_masked += o.causal_masked;
    padding += o.padding;
    bleed += o.bleed;
    return *this;
  }
  ATTNLAB_HD void add(CellKind kind, std::int64_t n = 1) {
    switch (kind) {
      case CellKind::useful: useful += n; break;
      case CellKind::causal_masked: causal_masked += n; break;
      case CellKind::padding: padding += n; break;
      case CellKind::bleed: bleed += n; break;
      case CellKind::not_visited: break;
    }
  }
  bool operator==(const CellCounts&) const = default;
};

}  // namespace attnlab
