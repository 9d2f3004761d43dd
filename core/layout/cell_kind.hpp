#pragma once
#include <array>
#include <cstdint>

#include "core/layout/host_device.hpp"

namespace attnlab {

// Why a (query, key) cell of a score matrix is, or is not, part of the answer.
// Adding a kind is one entry here plus its name below and its colour in gui/mask_picture/cell_colors.cpp.
enum class CellKind : std::uint8_t {
  useful,         // same document, visible under the causal rule and inside the window
  causal_masked,  // computed inside a visited tile, then masked because the key is in the future
  padding,        // a pad query or pad key (also tile overhang past a sequence's end)
  bleed,          // a key of another document in the same packed row
  window_masked,  // computed inside a visited tile, then masked because the key is outside the sliding window
  not_visited,    // inside a tile the kernel skips altogether
};

// The kinds a visited tile holds (every kind but not_visited), in enum order.
inline constexpr int computed_kind_count = 5;
inline constexpr int cell_kind_count = computed_kind_count + 1;
inline constexpr std::array<CellKind, computed_kind_count> computed_cell_kinds = {
    CellKind::useful, CellKind::causal_masked, CellKind::padding, CellKind::bleed, CellKind::window_masked};

inline const char* cell_kind_name(CellKind kind) {
  switch (kind) {
    case CellKind::useful: return "useful";
    case CellKind::causal_masked: return "causal_masked";
    case CellKind::padding: return "padding";
    case CellKind::bleed: return "bleed";
    case CellKind::window_masked: return "window_masked";
    case CellKind::not_visited: return "not_visited";
  }
  return "?";
}

// The cells attention runs over: useful, and bleed (packed rows are causal over the
// whole row, documents and all: that is the bleed). Every other kind gets -inf.
ATTNLAB_HD inline bool attended(CellKind kind) { return kind == CellKind::useful || kind == CellKind::bleed; }

// Cells of each kind in some region of a score matrix (one tile, one row, a whole
// layout), indexed by kind: c[CellKind::bleed]. not_visited cells are never counted.
struct CellCounts {
  std::int64_t n[computed_kind_count] = {};

  ATTNLAB_HD std::int64_t& operator[](CellKind kind) { return n[static_cast<int>(kind)]; }
  ATTNLAB_HD std::int64_t operator[](CellKind kind) const { return n[static_cast<int>(kind)]; }
  ATTNLAB_HD std::int64_t computed() const {
    std::int64_t total = 0;
    for (std::int64_t x : n) total += x;
    return total;
  }
  ATTNLAB_HD std::int64_t attended() const { return (*this)[CellKind::useful] + (*this)[CellKind::bleed]; }
  ATTNLAB_HD CellCounts& operator+=(const CellCounts& o) {
    for (int i = 0; i < computed_kind_count; ++i) n[i] += o.n[i];
    return *this;
  }
  ATTNLAB_HD void add(CellKind kind, std::int64_t count = 1) {
    if (kind != CellKind::not_visited) n[static_cast<int>(kind)] += count;
  }
  // Every count times `factor` (e.g. one head's counts times the heads).
  CellCounts times(std::int64_t factor) const {
    CellCounts c = *this;
    for (std::int64_t& x : c.n) x *= factor;
    return c;
  }
  bool operator==(const CellCounts&) const = default;
};

}  // namespace attnlab
