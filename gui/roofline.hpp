#pragma once
// Where the Timings view's roofline puts a measured run, kept apart from the drawing
// so the tests can check every point against its roof. A point is FLOP/s against
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

#include "gui/primary_runs.hpp"

namespace attnlab::gui {

struct Ceilings {
  double tflops;  // dense matrix products
  double tbps;    // HBM, TB/s (10^12 bytes per second)

  double roof_tflops(double flops_per_byte) const;
  double ridge() const { return tflops / tbps; }  // FLOPs per byte where the two roofs meet
};
// The shipped results' ceilings (results/h100/ceilings.toml: an 8192^3 bf16 GEMM and a
// device-to-device copy on the H100 behind them), the figures TABLE.md's floors use;
// a test keeps the two equal.
inline constexpr Ceilings h100_ceilings{756.0, 3.0};

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
// backward pass also reads O and dO and writes dQ, dK, dV). Empty when the row lacks
// its token or KV-head count.
std::optional<std::int64_t> least_bytes(const ResultRow& r);

// The points of one run: computed FLOP/s where the row holds it (our rows), and useful
// FLOP/s (every row that holds it). None when neither, or no bytes can be had.
std::vector<RooflinePoint> roofline_points(const MeasuredRun& run);

// A rectangle on screen.
struct Box {
  float x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box& o) const { return x0 >= o.x0 && y0 >= o.y0 && x1 <= o.x1 && y1 <= o.y1; }
};
// Label boxes beside markers, none overlapping another label, any marker or any of
// `obstacles` (other text), all inside `area`: each label tries right of its marker,
// then left, above and below, and is left out (nullopt; the tooltip
// still names the point) when none is free. A size of {0, 0} asks for no label.
std::vector<std::optional<Box>> place_labels(const std::vector<Box>& markers, const std::vector<std::pair<float, float>>& sizes,
                                             const std::vector<Box>& obstacles, const Box& area, float gap);

}  // namespace attnlab::gui
