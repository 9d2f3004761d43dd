#pragma once
// Where a measured run sits on a roofline (the GUI's Timings view draws them), kept
// apart from the drawing so the tests can check every point against its roof
// (ceilings.hpp). A point is FLOP/s against
// FLOPs per HBM byte, both counting the same FLOPs. Its bytes are ncu's measured DRAM
// bytes where a run of that configuration holds them; otherwise the least any forward
// pass of those documents must move (Q, K and V read once, O written once), a lower
// bound on the bytes and so an upper bound on the intensity: the true point lies at
// or left of it, under a roof at least as low. The cost model's bytes are never used:
// they count every K/V re-read from HBM where the L2 serves many, and would push a
// point left of where it belongs and above its roof.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ceilings.hpp"
#include "analysis/primary_runs.hpp"

namespace attnlab {

enum class BytesBasis { measured, lower_bound };
enum class FlopsBasis { computed, useful };  // every score of the visited tiles, or the useful ones only

struct RooflinePoint {
  const MeasuredRun* run = nullptr;
  const Run* bytes_from = nullptr;  // the run whose row holds the measured bytes; null for the lower bound
  double flops_per_byte = 0, tflops = 0;
  FlopsBasis flops = FlopsBasis::computed;
  BytesBasis bytes = BytesBasis::lower_bound;
};

// Q, K and V read once and O written once over the row's tokens (forward; the
// backward pass also reads O and dO and writes dQ, dK, dV); for an implementation that
// materializes the scores (naive), also each score matrix written once and read once in
// the row's dtype: S and P forward; dP and dS written and read and P read backward. Those
// matrices are N^2 and no L2 holds them, so leaving them out would put naive thousands of
// FLOPs per byte right of where it ran. Their cells are the row's scores computed, else its
// useful scores (a peer's row; the matrices hold at least those). Empty when the row lacks
// its token or KV-head count, or, materializing, both counts of scores.
std::optional<std::int64_t> least_bytes(const ResultRow& r);
// The same over `positions` token positions of a layout (a packed row's padding included).
std::int64_t least_bytes(std::int64_t positions, int heads, int kv_heads, int head_dim, DType dtype, Pass pass);

// The least time two perfect kernels could take for `flops` over at least `bytes`: the
// FLOPs at the GEMM ceiling or the bytes at the copy ceiling, whichever is longer. Under
// the ridge (FLOPs per byte below ceilings.ridge()) the bytes bound it: memory-bound.
struct TimeFloor {
  double flops_us = 0, bytes_us = 0;
  double flops_per_byte = 0;
  double us() const { return flops_us > bytes_us ? flops_us : bytes_us; }
  bool memory_bound() const { return bytes_us > flops_us; }
};
TimeFloor time_floor(double flops, double bytes, const Ceilings& ceilings);

// The points of one run: computed FLOP/s where the row holds it (our rows), and useful
// FLOP/s (every row that holds it). None when neither, or no bytes can be had.
std::vector<RooflinePoint> roofline_points(const MeasuredRun& run);

}  // namespace attnlab
