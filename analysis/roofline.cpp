#include "analysis/roofline.hpp"

#include <algorithm>
#include <limits>

namespace attnlab {

std::int64_t least_bytes(std::int64_t positions, int heads, int kv_heads, int head_dim, DType dtype, Pass pass) {
  const std::int64_t per_head = positions * head_dim * dtype_bytes(dtype);
  const std::int64_t tensors_per_head = pass == Pass::fwd ? 2 : 4;  // fwd: Q and O (K and V); bwd adds dO, dQ (dK, dV)
  return per_head * tensors_per_head * (std::int64_t{heads} + kv_heads);
}

std::optional<std::int64_t> least_bytes(const ResultRow& r) {
  if (!r.tokens || !r.kv_heads) return std::nullopt;
  const std::int64_t operands = least_bytes(*r.tokens, r.heads, *r.kv_heads, r.head_dim, r.dtype, r.pass);
  const std::optional<Implementation> impl = parse_implementation(r.implementation);
  if (!impl || !materializes_scores(*impl)) return operands;
  const std::optional<std::int64_t> cells = r.scores_computed ? r.scores_computed : r.scores_useful;
  // Forward: S and P written and read; backward: P read, dP and dS written and read.
  const std::int64_t per_cell = (r.pass == Pass::fwd ? 4 : 5) * dtype_bytes(r.dtype);
  if (!cells || *cells < 0 || *cells > (std::numeric_limits<std::int64_t>::max() - operands) / per_cell)
    return std::nullopt;  // a count no run could hold: no point rather than an overflow
  return operands + *cells * per_cell;
}

TimeFloor time_floor(double flops, double bytes, const Ceilings& c) {
  return {flops / (c.tflops * 1e12) * 1e6, bytes / (c.tbps * 1e12) * 1e6, bytes > 0 ? flops / bytes : 0};
}

std::vector<RooflinePoint> roofline_points(const MeasuredRun& run) {
  const ResultRow& r = *run.primary.row;
  RooflinePoint base{&run, run.with_measured_bytes(), 0, 0, FlopsBasis::computed, BytesBasis::measured};
  std::optional<std::int64_t> bytes;
  if (base.bytes_from) {
    bytes = base.bytes_from->row->hbm_bytes_measured;
  } else {
    base.bytes = BytesBasis::lower_bound;
    bytes = least_bytes(r);
  }
  std::vector<RooflinePoint> points;
  if (!bytes || *bytes <= 0 || !r.median_us) return points;
  const double seconds = *r.median_us * 1e-6;
  for (const auto& [tflops, basis] :
       {std::pair{r.computed_tflops, FlopsBasis::computed}, std::pair{r.useful_tflops, FlopsBasis::useful}}) {
    if (!tflops || *tflops <= 0) continue;
    RooflinePoint p = base;
    p.flops = basis;
    p.tflops = *tflops;
    p.flops_per_byte = *tflops * 1e12 * seconds / double(*bytes);
    points.push_back(p);
  }
  return points;
}

}  // namespace attnlab
