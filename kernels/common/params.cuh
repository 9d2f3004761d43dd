#pragma once
// What both flash kernels take, forward and backward: the layout on the device, the
// work list and the tensors, and the counters a counting run adds into.
#include <cstdint>

#include "core/layout/cell_kind.hpp"
#include "core/layout/layout.hpp"
#include "kernels/common/work_list.hpp"

namespace attnlab::flash {

// Counters the counting run adds into: visited tiles, cells indexed by CellKind, and
// the scores the kernel's own mask left finite (what the model calls useful + bleed).
struct DeviceCounts {
  unsigned long long visited_tiles;
  unsigned long long cells[computed_kind_count];
  unsigned long long finite_scores;
};

struct Params {
  LayoutView layout;
  const WorkItem* work;
  int heads, kv_heads;
  float scale_log2;  // softmax scale times log2(e): scores go straight into exp2
  const void* q;
  const void* k;
  const void* v;
  void* o;               // in the dtype; unused where o_sums is set
  float* lse;            // natural log; with o_sums, the sums' LSE
  float* o_sums;         // null, or fp32 running sums each query's O folds into (output_sums.cuh)
  DeviceCounts* counts;  // null unless counting
  int* work_counter;     // zero at launch: what a scheduler that hands out items by atomics counts with
};

struct BackwardParams {
  LayoutView layout;
  const WorkItem* work;  // (row, tile) items: the tile is read as a key tile
  int heads, kv_heads;
  float scale_log2;  // softmax scale times log2(e), as the forward
  const void* q;
  const void* k;
  const void* v;
  const void* d_o;
  const float* lse;    // the forward's, natural log, [position][head]
  const float* delta;  // Δ = rowsum(dO∘O), [position][head]
  float* dq_accum;     // receives dS·K (the scale is applied on conversion), made ready by the Δ pass
  int* dq_arrivals;    // [position][head]: writers of the dQ block starting there (a backward that stores the first)
  void* dk;
  void* dv;
  float scale;           // the softmax scale: dK = scale·dSᵀ·Q
  DeviceCounts* counts;  // null unless counting
};

}  // namespace attnlab::flash
