#pragma once
// The warp-specialized backward's producer (warpgroup 0), two warps at work:
//  - the loader (warp 0) copies the key tile's K and V once, then each step's Q and dO
//    (64 queries of one head) by TMA into the step ring's next stage, the step's query
//    info (LSE, Δ, attended keys) beside them; a tile that runs past the row's valid
//    tokens the warp copies itself by cp.async, zero-filled: TMA would read the next
//    document or padding there, and although the mask gives those rows no weight, 0 · NaN
//    would still reach dK through Q, dQ through K, or dS through dO and V;
//  - the dQ writer (warp 1) adds each consumer's staged dQ of each step to the fp32
//    accumulator by TMA bulk reductions, and hands the staging back once they have read it.
// Lane 0 issues every TMA instruction; every loader lane arrives on the barriers it fills
// (kLoaderLanes arrivals a phase).
#include "kernels/common/copy_async.cuh"
#include "kernels/wgmma_sm90/backward_params.cuh"
#include "kernels/wgmma_sm90/backward_shared_memory.cuh"
#include "kernels/wgmma_sm90/barriers.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

inline constexpr int kLoaderLanes = 32;

// Copies a tile of `rows` rows from `position` of one head into `tile`: by TMA (D/64
// boxes against `bar`, whose bytes the caller announced) when all its rows lie inside
// the row's valid tokens, else by the warp's cp.async with zeros past them (the loader is
// warp 0: the CTA's first kLoaderLanes threads), which the caller lands.
template <typename T, int D, int rows>
__device__ __forceinline__ void copy_rows(unsigned char* tile, const CUtensorMap* map, std::uint64_t* bar,
                                          const T* tensor, int heads, int head, int position, int rows_present,
                                          int lane) {
  if (rows_present >= rows) {
    if (lane == 0)
      for (int b = 0; b < D / 64; ++b) copy_box(tile + b * rows * 128, map, bar, b * 64, head, position);
    return;
  }
  const std::int64_t stride = std::int64_t(heads) * D;
  const T* const first = tensor + (position * stride + head * D);
  // A copy per lane at a time, a loop not unrolled: the producer's 56 registers hold no
  // more addresses than that.
  constexpr int rows_per_copy = kLoaderLanes * 8 / D;
#pragma unroll 1
  for (int r = 0; r < rows; r += rows_per_copy)
    flash::copy_rows_async<T, D, rows_per_copy, kLoaderLanes>(
        [tile, r](int row, int chunk) { return tile + tile_offset(r + row, chunk, rows); }, first + r * stride, stride,
        rows_present - r);
}

template <typename T, int D>
__device__ void load_steps(const BackwardParams& params, const BackwardShared<D>& s, const KeyItem<T, D>& item,
                           int lane) {
  const flash::BackwardParams& p = params.flash;
  if (lane == 0) {
    prefetch_tensor_map(&params.q_map);
    prefetch_tensor_map(&params.do_map);
    prefetch_tensor_map(&params.k_map);
    prefetch_tensor_map(&params.v_map);
  }
  // The warp's own copies, in flight at once, landed and made visible to wgmma.
  const auto land_copies = [] {
    flash::commit_copies();
    flash::wait_copies<0>();
    fence_shared_for_async();
  };
  // Every lane arrives, each releasing its own stores (query info, zero-filled rows); lane
  // 0's arrival also announces the bytes the copy engine brings, before any of them lands
  // (an arrival with nothing announced would complete the phase while a box is on its way).
  const auto arrive = [&](std::uint64_t* bar, int bytes) {
    if (lane == 0 && bytes > 0)
      barrier_arrive_expect_bytes(bar, bytes);
    else
      barrier_arrive(bar);
  };
  const int key_position = item.row_begin + item.k0, keys_present = item.valid - item.k0;
  const int key_bytes = (keys_present >= kCols ? 2 * kCols * D * 2 : 0);
  if (key_bytes > 0) arrive(s.key_barrier(), key_bytes);
  copy_rows<T, D, kCols>(s.k(), &params.k_map, s.key_barrier(), static_cast<const T*>(p.k), p.kv_heads, item.kv_head,
                         key_position, keys_present, lane);
  copy_rows<T, D, kCols>(s.v(), &params.v_map, s.key_barrier(), static_cast<const T*>(p.v), p.kv_heads, item.kv_head,
                         key_position, keys_present, lane);
  if (key_bytes == 0) {
    land_copies();
    arrive(s.key_barrier(), 0);
  }

  PipelineState<SpecializedBackwardLayout<D>::stages> write;
  const int steps = step_count(item);
  for (int step = 0; step < steps; ++step, write.advance()) {
    const int head = step_head(item, step), q0 = step_first_query(item, step);
    const int stage = write.stage();
    std::uint64_t* const full = s.step_ring().full_barrier(write);
    s.step_ring().wait_empty(write);  // both consumers are done with the step two back
    flash::load_query_info(p, item.row_begin, item.bounds(), head, q0, s.info(stage), lane);
    const int present = item.valid - q0, position = item.row_begin + q0;
    const int bytes = (present >= kStepQueries ? 2 * kStepQueries * D * 2 : 0);
    if (bytes > 0) arrive(full, bytes);
    copy_rows<T, D, kStepQueries>(s.q(stage), &params.q_map, full, static_cast<const T*>(p.q), p.heads, head, position,
                                  present, lane);
    copy_rows<T, D, kStepQueries>(s.d_o(stage), &params.do_map, full, static_cast<const T*>(p.d_o), p.heads, head,
                                  position, present, lane);
    if (bytes == 0) {
      land_copies();
      arrive(full, 0);
    }
  }
}

// Step by step: the staging is free once the last step's reductions have read it; then,
// consumer by consumer, its staged dQ goes out. At head dim 64 consumer 0 alone stages dQ.
template <typename T, int D>
__device__ void write_query_gradients(const BackwardParams& params, const BackwardShared<D>& s,
                                      const KeyItem<T, D>& item, int lane) {
  constexpr int staging_consumers = D / 64;
  if (lane == 0) prefetch_tensor_map(&params.dq_map);
  const int steps = step_count(item);
  for (int step = 0; step < steps; ++step) {
    if (lane == 0) wait_bulk_groups_read<0>();
    __syncwarp();
    for (int c = 0; c < staging_consumers; ++c) arrive_threads_of(dq_empty_barrier(c), kQueryGradientHandoffThreads);
    const int head = step_head(item, step), position = item.row_begin + step_first_query(item, step);
    for (int c = 0; c < staging_consumers; ++c) {
      sync_threads_of(dq_full_barrier(c), kQueryGradientHandoffThreads);
      if (lane == 0) start_adding_query_gradient(&params.dq_map, s.dq(), c, head, position);
    }
  }
  if (lane == 0) wait_bulk_groups<0>();  // the reductions have read the staging and added it
}

}  // namespace attnlab::wgmma_sm90
