#pragma once
// The warp-specialized backward's producer (warpgroup 0), two warps at work:
//  - the loader (warp 0) takes the items from the scheduler; per item it copies each
//    step's Q and dO (64 queries of one head) by TMA into the step ring's next stage, the
//    step's query info (LSE, Δ, attended keys) beside them, and, once the consumers and the
//    writer have released the last item, the key tile's K and V, with the item published
//    in its slot; rows past the row's valid tokens it zeroes (fill_tile_pair);
//  - the dQ writer (warp 1) adds each consumer's staged dQ of each step to the fp32
//    accumulator by TMA bulk reductions, and hands the staging back once they have read it;
//    or (first_store) stores the first dQ to reach each block of the sums and adds the rest.
// Lane 0 issues every TMA instruction; every loader lane arrives on the barriers it fills
// (kLoaderLanes arrivals a phase).
#include "kernels/common/scheduler.cuh"
#include "kernels/wgmma_sm90/backward_params.cuh"
#include "kernels/wgmma_sm90/backward_shared_memory.cuh"
#include "kernels/wgmma_sm90/barriers.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

inline constexpr int kLoaderLanes = 32;
inline constexpr int kWriterLanes = 32;

// The loader's own mbarrier, on which it waits for a tile that crosses the row's valid
// end before zeroing the rows past it; `phase` counts its completed phases.
struct CrossingBarrier {
  std::uint64_t* bar;
  int phase;
};

// Fills two tiles (K and V, or a step's Q and dO) with `rows` rows of one head each from
// `position`, then arrives on `full`. Tiles inside the row's valid tokens come by TMA (D/64
// boxes each), counted by the copy engine on `full`. Past the valid end TMA would bring the
// next document or padding, and although the mask gives those rows no weight, 0 · NaN would
// still reach dK through Q, dQ through K, or dS through dO and V: a tile that crosses the end
// comes whole against the loader's own barrier, after which the warp zeroes the rows past
// it; a tile wholly past the end is only zeroed.
template <int D, int rows>
__device__ __forceinline__ void fill_tile_pair(unsigned char* tile_a, const CUtensorMap* map_a, unsigned char* tile_b,
                                               const CUtensorMap* map_b, int head, int position, int rows_present,
                                               std::uint64_t* full, CrossingBarrier& crossing, int lane) {
  constexpr int tile_bytes = rows * D * 2;
  const auto copy_boxes = [&](std::uint64_t* bar) {
    for (int b = 0; b < D / 64; ++b) {
      copy_box(tile_a + b * rows * 128, map_a, bar, b * 64, head, position);
      copy_box(tile_b + b * rows * 128, map_b, bar, b * 64, head, position);
    }
  };
  if (rows_present >= rows) {
    if (lane == 0) {
      barrier_arrive_expect_bytes(full, 2 * tile_bytes);
      copy_boxes(full);
    } else {
      barrier_arrive(full);
    }
    return;
  }
  const int first_zero_row = rows_present > 0 ? rows_present : 0;
  if (rows_present > 0) {
    if (lane == 0) {
      barrier_arrive_expect_bytes(crossing.bar, 2 * tile_bytes);
      copy_boxes(crossing.bar);
    }
    barrier_wait(crossing.bar, crossing.phase);
    crossing.phase ^= 1;
  }
  // Whole rows in every block of 64 columns: the swizzle moves chunks within a row only.
  constexpr int chunks_per_block = rows * 8;
  for (int i = first_zero_row * 8 + lane; i < chunks_per_block; i += kLoaderLanes)
    for (int b = 0; b < D / 64; ++b) {
      *reinterpret_cast<uint4*>(tile_a + b * rows * 128 + i * 16) = uint4{};
      *reinterpret_cast<uint4*>(tile_b + b * rows * 128 + i * 16) = uint4{};
    }
  fence_shared_for_async();  // wgmma reads what these stores wrote
  barrier_arrive(full);
}

// Item n's K and V, once the consumers' products are done with item n - 1's and the writer
// with its slot (key_empty_barrier). Lane 0's arrival on the key barrier, whose phase n the
// consumers and the writer wait for, publishes the item's slot too. Waiting for item n - 1's
// release also keeps the key barrier from completing phase n before every waiter has seen
// phase n - 1, which a parity wait would miss.
template <typename T, int D>
__device__ __forceinline__ void load_keys(const BackwardParams& params, const BackwardShared<T, D>& s,
                                          const KeyItem<T, D>& item, int n, CrossingBarrier& crossing, int lane) {
  if (n > 0) barrier_wait(s.key_empty_barrier(), (n - 1) % 2);
  fill_tile_pair<D, kCols>(s.k(), &params.k_map, s.v(), &params.v_map, item.kv_head, item.row_begin + item.k0,
                           item.valid - item.k0, s.key_barrier(), crossing, lane);
}

// Persistent, the loader walks the scheduler's items and publishes the end of the work in
// a slot of its own; else it loads its CTA's one item.
template <typename T, int D, bool persistent, typename Scheduler>
__device__ void load_items(const BackwardParams& params, const BackwardShared<T, D>& s, const Scheduler& scheduler,
                           int lane) {
  const flash::BackwardParams& p = params.flash;
  if (lane == 0) {
    prefetch_tensor_map(&params.q_map);
    prefetch_tensor_map(&params.do_map);
    prefetch_tensor_map(&params.k_map);
    prefetch_tensor_map(&params.v_map);
  }
  CrossingBarrier crossing{s.crossing_barrier(), 0};
  PipelineState<SpecializedBackwardLayout<T, D>::stages> write;
  flash::WorkTile work = scheduler.get_initial_work();
  for (int n = 0;; ++n) {
    if (!scheduler.is_valid(work)) {
      // Slot n says the work is done; its phase of the key barrier carries no bytes.
      if (lane == 0) s.item_slot(n).done = true;
      if (n > 0) barrier_wait(s.key_empty_barrier(), (n - 1) % 2);
      barrier_arrive(s.key_barrier());
      return;
    }
    const KeyItem<T, D> item(p, work.index);
    if (lane == 0) s.item_slot(n) = {item, false};
    // The first item's K and V go first (and an item's without steps); a later item's after
    // its first step's copies, which need not wait for the consumers to finish the last
    // item's products.
    const int steps = step_count(item);
    const bool keys_first = n == 0 || steps == 0;
    if (keys_first) load_keys(params, s, item, n, crossing, lane);
    StepCursor cursor(item);
    for (int step = 0; step < steps; ++step, write.advance(), cursor.advance(item)) {
      const int head = cursor.head, q0 = cursor.first_query;
      const int stage = write.stage();
      s.step_ring().wait_empty(write);  // both consumers are done with the step two back
      // Every lane arrives on the stage's barrier after its own stores of the query info.
      flash::load_query_info<kCols>(p, item.row_begin, item.bounds(), head, q0, item.k0, s.info(stage), lane);
      fill_tile_pair<D, kStepQueries>(s.q(stage), &params.q_map, s.d_o(stage), &params.do_map, head,
                                      item.row_begin + q0, item.valid - q0, s.step_ring().full_barrier(write), crossing,
                                      lane);
      if (step == 0 && !keys_first) load_keys(params, s, item, n, crossing, lane);
    }
    if constexpr (persistent) {
      // The next item is taken once this item's last step is copied: taken earlier, a heavy
      // item would wait behind this one while other SMs run out of work; the counter's latency
      // hides behind the two steps the consumers are behind.
      flash::WorkTile next{0};
      if (lane == 0) next = scheduler.get_next_work(work);
      work.index = __shfl_sync(0xffffffffu, next.index, 0);
    } else {
      return;
    }
  }
}

// A block of dQ sums (a step's queries of one head, the row's own positions) and who writes
// it: its arrival count (GradientViews::dq_arrivals, at the block's first position and head,
// zeroed by the Δ pass) takes one atomic add per writer; the first stores its rows and then
// sets kBlockStored, the later ones wait for that bit and add theirs. The first says so only
// once its stores have landed, and it says so before it waits on any other block, so two
// writers never wait on each other.
inline constexpr int kBlockStored = 1 << 30;

// The writer warp's claim on a block (`arrivals`, its count): whether it is the first; a later
// writer returns once the first's stores have landed, ready to add. Without rows to write, no
// claim (the block is another row's).
__device__ __forceinline__ bool claim_block(int* arrivals, bool has_rows, int lane) {
  int seen = 0;
  if (lane == 0 && has_rows) seen = atomicAdd(arrivals, 1);
  seen = __shfl_sync(0xffffffffu, seen, 0);
  if (seen == 0) return true;
  if (lane == 0 && !(seen & kBlockStored))
    while (!(load_acquire(arrivals) & kBlockStored)) __nanosleep(64);
  __syncwarp();
  fence_global_for_async();  // the additions follow the first's stores
  return false;
}

// Step by step: the staging is free once the last step's copies have read it; then,
// consumer by consumer, its staged dQ goes out. Persistent, at an item's end the staging
// goes back once more (the consumers stage the item's dK and dV there) and the writer
// releases the item's slot. At head dim 64 consumer 0 alone stages dQ. Lane 0 copies boxes;
// with first_store every lane may copy rows, so every lane waits for its own copies.
template <typename T, int D, bool persistent, bool first_store>
__device__ void write_query_gradients(const BackwardParams& params, const BackwardShared<T, D>& s, int lane) {
  constexpr int staging_consumers = D / 64;
  const flash::BackwardParams& p = params.flash;
  const bool copies = first_store || lane == 0;
  if (lane == 0) prefetch_tensor_map(&params.dq_map);
  const auto hand_back_staging = [&] {
    if (copies) wait_bulk_groups_read<0>();
    __syncwarp();
    for (int c = 0; c < staging_consumers; ++c) arrive_threads_of(dq_empty_barrier(c), kQueryGradientHandoffThreads);
  };
  int* stored = nullptr;  // the block this writer stored last, not yet said to have landed
  const auto say_stored = [&] {
    if (!stored) return;
    wait_bulk_groups<0>();
    fence_global_for_async();
    __syncwarp();
    if (lane == 0) or_release(stored, kBlockStored);
    stored = nullptr;
  };
  for (int n = 0;; ++n) {
    barrier_wait(s.key_barrier(), n % 2);  // item n published
    if (persistent && s.item_slot(n).done) break;
    const KeyItem<T, D> item = s.item_slot(n).item;
    const int steps = step_count(item);
    StepCursor cursor(item);
    for (int step = 0; step < steps; ++step, cursor.advance(item)) {
      hand_back_staging();
      const int head = cursor.head, position = item.row_begin + cursor.first_query;
      // Without first_store every block is added, staged in boxes.
      int rows = kStepQueries;
      int* arrivals = nullptr;
      bool first = false;
      const std::int64_t block = flash::query_stats_at(p, item.row_begin, head, cursor.first_query, 0);
      if constexpr (first_store) {
        say_stored();
        rows = queries_in_row(item, cursor.first_query);
        arrivals = p.dq_arrivals + block;
        first = claim_block(arrivals, rows > 0, lane);
      }
      for (int c = 0; c < staging_consumers; ++c) {
        sync_threads_of(dq_full_barrier(c), kQueryGradientHandoffThreads);
        if (rows == kStepQueries) {  // staged in boxes
          if (lane == 0) start_writing_query_gradient(&params.dq_map, s.dq(), c, head, position, first);
        } else {
          start_writing_query_gradient_rows(p.dq_accum + block * D, std::int64_t(p.heads) * D, s.dq(), c, rows, first,
                                            lane);
        }
      }
      if (first && rows > 0) stored = arrivals;
    }
    if constexpr (!persistent) break;
    hand_back_staging();
    if constexpr (first_store) say_stored();
    barrier_arrive(s.key_empty_barrier());
  }
  if constexpr (first_store) say_stored();
  if (copies) wait_bulk_groups<0>();  // the copies have read the staging and landed
}

}  // namespace attnlab::wgmma_sm90
