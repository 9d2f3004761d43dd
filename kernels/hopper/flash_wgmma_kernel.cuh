#pragma once
// The Hopper forward kernel (FlashAttention-3 style, sm_90a) behind padded,
// packed and varlen, beside the teaching kernel (kernels/flash_kernel.cuh),
// whose algorithm it keeps step for step: the layout decides the rows, the key
// tiles visited and the mask (core/layout.hpp); the math is
//   S = Q·Kᵀ (wgmma, both from shared memory) -> mask -> online softmax
//   (registers) -> O += P·V (wgmma, P from registers).
// What changes is who does what. A CTA is three warpgroups:
//  - the producer (warpgroup 0; one warp works) copies the Q tile and a ring of
//    K/V stages with the tensor-memory copy engine (TMA), each stage guarded by
//    a "full" mbarrier (the bytes landed) and an "empty" one (both consumers done);
//  - two consumers (warpgroups 1 and 2) each own 64 of the tile's 128 query rows
//    (a wgmma is 64 rows high) and run the math on the same K/V stages.
// The producer gives most of its registers to the consumers (setmaxnreg).
// Tile: 128 query rows x 128 keys (kernel_tile(FlashKernel::wgmma_sm90)).
// The features F switch ideas off for the ladder (flash_wgmma_features.hpp); the
// comments describe the shipped kernel, shipped_features(D).
#include "kernels/flash_kernel.cuh"
#include "kernels/hopper/flash_wgmma.hpp"
#include "kernels/hopper/flash_wgmma_features.hpp"
#include "kernels/hopper/hopper_ptx.cuh"

namespace attnlab::hopper {

inline constexpr int kWarpgroup = 128;
inline constexpr int kConsumers = 2;                            // warpgroups of 64 query rows
inline constexpr int kConsumerThreads = kConsumers * kWarpgroup;  // what an "empty" barrier waits for
inline constexpr int kThreads = kWarpgroup + kConsumerThreads;
// 56 x 128 + 224 x 256 registers fit the CTA's 384 x 168: the consumers hold S
// (64 per thread), O (D/2) and P (32); the producer computes addresses and fills
// the tiles that cross a row's end (with 40 it spilled).
inline constexpr int kProducerRegisters = 56;
inline constexpr int kConsumerRegisters = 224;

// fast_exp2, quad_max, quad_sum, pack_pair, add_counts and the parameters are the teaching kernel's.
using flash::DeviceCounts;
using flash::fast_exp2;
using flash::pack_pair;
using flash::quad_max;
using flash::quad_sum;

// The teaching kernel's parameters plus the three tensor maps TMA reads through:
// Q, K and V as [position][head][d], boxes of 128 positions x 64 elements.
struct Params {
  flash::Params flash;
  CUtensorMap q_map, k_map, v_map;
  int* next_item;  // the scheduler's counter, zero at launch: items handed out beyond the first gridDim.x
};

// Where one work item is: a (row, query tile) of the layout and one head
// (the work list holds (row, query tile); index = its position * heads + head).
struct Item {
  WorkItem work;
  int head, kv_head;
  int q0;                      // the tile's first query, inside the row
  int row_begin, extent, valid;  // the row's buffer position, its length and its valid tokens
  TileRange key_tiles;         // the key tiles it visits

  Item() = default;
  __device__ Item(const flash::Params& p, int index)
      : work(p.work[index / p.heads]),
        head(index % p.heads),
        kv_head(head / (p.heads / p.kv_heads)),
        q0(work.query_tile * kRows),
        row_begin(p.layout.row_start[work.row]),
        extent(row_extent(p.layout, work.row)),
        valid(p.layout.row_valid[work.row]),
        key_tiles(key_tiles_visited(p.layout, TileShape{kRows, kCols}, work.row, work.query_tile)) {}
};

// What the producer tells the consumers about the item of a Q buffer: the item
// itself, decoded once (its coordinates come from global memory, a round trip
// the consumers would otherwise wait for at every item), or that the work is done.
struct ItemSlot {
  Item item;
  bool done;
};

// Shared memory: two Q tiles (the next item's Q lands while this item computes;
// an item's output is staged in its own Q tile once its last Q·Kᵀ is done; one
// without F.two_q_buffers), `stages` K and V tiles, and the mbarriers. Every tile
// is 128 rows x D in TMA's 128-byte swizzle: D/64 blocks of [128 rows][64
// elements], each 1024-byte aligned.
template <int D, ForwardFeatures F = shipped_features(D)>
struct SharedLayout {
  static constexpr int q_buffers = F.two_q_buffers ? 2 : 1;
  static constexpr int stages = F.kv_stages;
  static constexpr int tile_bytes = kRows * D * 2;
  static constexpr int block_bytes = kRows * 128;  // one [128][64] block
  static constexpr int q = 0;
  static constexpr int k = q + q_buffers * tile_bytes;
  static constexpr int v = k + stages * tile_bytes;
  static constexpr int barriers = v + stages * tile_bytes;
  static constexpr int barrier_count = 2 * q_buffers + 4 * stages;
  static constexpr int item_slots = barriers + barrier_count * 8;  // an ItemSlot per Q buffer
  static constexpr int bytes = item_slots + q_buffers * int(sizeof(ItemSlot)) + 1024;  // + room to align the base
};

// Byte offset of 16-byte chunk `chunk` (along d) of row `row` in a swizzled tile
// of `rows` rows (its 64-element blocks are rows·128 bytes apart).
__device__ __forceinline__ int tile_offset(int row, int chunk, int rows = kRows) {
  return (chunk / 8) * (rows * 128) + row * 128 + (((chunk % 8) ^ (row % 8)) << 4);
}

// A warpgroup's accumulator of `columns` columns (the thread's rows first_row and
// first_row + 8, each times its factor), in 16 bits, into a tile of `rows` rows in
// wgmma's swizzle. Each warp writes 32 different banks: the swizzle spreads its 8 rows.
template <typename T, int columns, int rows = kRows>
__device__ __forceinline__ void stage_accumulator(unsigned char* tile, const float (&acc)[columns / 2], int first_row,
                                                  const float (&row_factor)[2], int lane) {
#pragma unroll
  for (int j = 0; j < columns / 8; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i)
      *reinterpret_cast<std::uint32_t*>(tile + tile_offset(first_row + 8 * i, j, rows) + (lane % 4) * 4) =
          pack_pair<T>(acc[4 * j + 2 * i] * row_factor[i], acc[4 * j + 2 * i + 1] * row_factor[i]);
}

// 64 staged rows of a tile of `rows` rows, from `first_row`, into `out` (`stride`
// elements per row), 16 bytes per thread of a warpgroup: whole lines, where the
// accumulator's own layout would write 16 bytes of each of 8 rows per warp store.
// Rows at or past `rows_present` are not stored.
template <typename T, int D, int rows = kRows>
__device__ __forceinline__ void store_staged_rows(T* out, std::int64_t stride, int rows_present,
                                                  const unsigned char* tile, int first_row, int thread) {
  constexpr int chunks = D / 8;
#pragma unroll
  for (int n = 0; n < 64 * chunks / kWarpgroup; ++n) {
    const int i = thread + kWarpgroup * n, row = i / chunks, chunk = i % chunks;
    if (row < rows_present)
      *reinterpret_cast<uint4*>(out + row * stride + chunk * 8) =
          *reinterpret_cast<const uint4*>(tile + tile_offset(first_row + row, chunk, rows));
  }
}

template <int D, ForwardFeatures F>
struct Shared {
  using L = SharedLayout<D, F>;
  unsigned char* base;
  __device__ unsigned char* q(int buffer) const { return base + L::q + buffer * L::tile_bytes; }
  __device__ unsigned char* k(int stage) const { return base + L::k + stage * L::tile_bytes; }
  __device__ unsigned char* v(int stage) const { return base + L::v + stage * L::tile_bytes; }
  __device__ std::uint64_t* barrier(int i) const { return reinterpret_cast<std::uint64_t*>(base + L::barriers) + i; }
  __device__ std::uint64_t* q_full(int buffer) const { return barrier(buffer); }
  __device__ std::uint64_t* q_empty(int buffer) const { return barrier(L::q_buffers + buffer); }
  __device__ std::uint64_t* k_full(int stage) const { return barrier(2 * L::q_buffers + stage); }
  __device__ std::uint64_t* k_empty(int stage) const { return barrier(2 * L::q_buffers + L::stages + stage); }
  __device__ std::uint64_t* v_full(int stage) const { return barrier(2 * L::q_buffers + 2 * L::stages + stage); }
  __device__ std::uint64_t* v_empty(int stage) const { return barrier(2 * L::q_buffers + 3 * L::stages + stage); }
  __device__ ItemSlot* item_slot(int buffer) const { return reinterpret_cast<ItemSlot*>(base + L::item_slots) + buffer; }
};

// The scheduler: a persistent grid over the work list times the heads (index =
// item * heads + head: heaviest rows first, a row's tiles and heads together, so
// the CTAs running at one time share that row's K and V in L2). CTA b starts with
// item b; after that, whichever CTA's producer asks first takes the next item from
// an atomic counter, so a CTA that drew light items takes more (without
// F.counter_schedule, CTA b takes items b, b + gridDim.x, ...). The producer
// passes each item to the consumers beside its Q tile: the CTA's item number i
// uses Q buffer i % q_buffers (and its ItemSlot) for the (i / q_buffers)th time.
// K/V tile number t of a CTA sits in stage t % stages, in that stage's use
// t / stages. A barrier's phase flips at each use, so the parity to wait for is
// that use count's lowest bit (with one buffer or stage: every use flips it).

// ---- the producer ------------------------------------------------------------------

// Copies a V tile whose keys run past the row's valid tokens, zero-filling those
// rows: TMA would read whatever lies there (the next document, or padding), and
// although P is 0 for them, 0 · NaN would still poison O. One warp, 16 bytes per copy.
template <typename T, int D>
__device__ __forceinline__ void copy_tile_zero_filled(unsigned char* tile, const T* first_row, std::int64_t stride,
                                                      int rows_present, int lane) {
  constexpr int chunks = D / 8;
#pragma unroll 2
  for (int i = lane; i < kRows * chunks; i += 32) {
    const int row = i / chunks, chunk = i % chunks;
    uint4 value = make_uint4(0, 0, 0, 0);
    if (row < rows_present) value = *reinterpret_cast<const uint4*>(first_row + row * stride + chunk * 8);
    *reinterpret_cast<uint4*>(tile + tile_offset(row, chunk)) = value;
  }
  fence_shared_for_async();  // wgmma reads these next
}

// Lane 0 issues every TMA copy; the whole warp fills V tiles that cross the row's end.
template <typename T, int D, ForwardFeatures F>
__device__ void produce(const Params& p, const Shared<D, F>& s, int total_items) {
  using L = SharedLayout<D, F>;
  const int lane = threadIdx.x % 32;
  if (lane == 0) {
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
  }
  int tile_count = 0;
  int index = blockIdx.x;
  for (int item_count = 0;; ++item_count) {
    const bool done = index >= total_items;
    const int buffer = item_count % L::q_buffers;
    Item item;
    if (!done) item = Item(p.flash, index);
    if (lane == 0) {
      // The Q buffer is free once both consumers have stored the output of the item before last
      // (with one buffer: of the last item).
      barrier_wait(s.q_empty(buffer), ((item_count / L::q_buffers) & 1) ^ 1);
      ItemSlot& slot = *s.item_slot(buffer);  // published by the arrival below
      slot.item = item;
      slot.done = done;
      if (done) barrier_arrive(s.q_full(buffer));
    }
    if (done) break;
    int next = 0;
    if (lane == 0) {
      barrier_arrive_expect_bytes(s.q_full(buffer), L::tile_bytes);
      for (int b = 0; b < D / 64; ++b)
        copy_box(s.q(buffer) + b * L::block_bytes, &p.q_map, s.q_full(buffer), b * 64, item.head,
                 item.row_begin + item.q0);
      if constexpr (F.counter_schedule)
        next = gridDim.x + atomicAdd(p.next_item, 1);  // its latency hides behind this item's loads
      else
        next = index + gridDim.x;
    }
    for (int kt = item.key_tiles.first; kt < item.key_tiles.end; ++kt, ++tile_count) {
      const int stage = tile_count % L::stages;
      const int parity = ((tile_count / L::stages) & 1) ^ 1;  // the previous use of the stage
      const int k0 = kt * kCols;
      if (lane == 0) {
        barrier_wait(s.k_empty(stage), parity);
        barrier_arrive_expect_bytes(s.k_full(stage), L::tile_bytes);
        for (int b = 0; b < D / 64; ++b)
          copy_box(s.k(stage) + b * L::block_bytes, &p.k_map, s.k_full(stage), b * 64, item.kv_head,
                   item.row_begin + k0);
      }
      // Keys past the row's valid end are masked in S; for K, nothing more is needed.
      barrier_wait(s.v_empty(stage), parity);
      if (k0 + kCols <= item.valid) {
        if (lane == 0) {
          barrier_arrive_expect_bytes(s.v_full(stage), L::tile_bytes);
          for (int b = 0; b < D / 64; ++b)
            copy_box(s.v(stage) + b * L::block_bytes, &p.v_map, s.v_full(stage), b * 64, item.kv_head,
                     item.row_begin + k0);
        }
      } else {
        const std::int64_t stride = std::int64_t(p.flash.kv_heads) * D;
        const T* first = static_cast<const T*>(p.flash.v) + (item.row_begin + k0) * stride + item.kv_head * D;
        copy_tile_zero_filled<T, D>(s.v(stage), first, stride, item.valid - k0, lane);
        __syncwarp();
        if (lane == 0) barrier_arrive(s.v_full(stage));
      }
    }
    index = __shfl_sync(0xffffffffu, next, 0);
  }
}

// ---- the consumers: the algorithm's steps for one warpgroup's 64 query rows ---------
//
// A wgmma accumulator of 64 x N: warp w of the warpgroup holds rows 16w..16w+15;
// element e of a thread is row lane/4 + 8·((e/2)%2), column 8·(e/4) + 2·(lane%4) + e%2
// (per 8 columns, the mma.sync layout the teaching kernel uses).

using Scores = float[kCols / 2];               // S or P of the warpgroup's rows against one key tile
template <int D> using Output = float[D / 2];  // the warpgroup's O accumulator
using ProbabilityFragments = std::uint32_t[kCols / 16][4];

// Starts s = Q·Kᵀ: D/16 wgmmas of 16 elements along d, each reading its slice of a
// 128-byte row; one commit group. The caller issues wgmma_fence first and waits.
template <typename T, int D>
__device__ __forceinline__ void start_scores_qk(Scores& s, const unsigned char* q_rows, const unsigned char* k_tile) {
  constexpr int block = SharedLayout<D>::block_bytes;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int offset = (kk / 4) * block + (kk % 4) * 32;
    wgmma_64xn_shared<std::is_same_v<T, __nv_bfloat16>, kCols>(s, matrix_descriptor(q_rows + offset, 16),
                                                          matrix_descriptor(k_tile + offset, 16), kk > 0);
  }
  wgmma_commit();
}

// Cells that are not attended (causal_masked, window_masked, padding) get -inf:
// each query row attends one range of keys, attended_keys (core/layout.hpp).
__device__ __forceinline__ void mask_scores(Scores& s, const KeyRange (&keys)[2], int k0, int lane) {
#pragma unroll
  for (int e = 0; e < kCols / 2; ++e) {
    const int key = k0 + (e / 4) * 8 + (lane % 4) * 2 + (e % 2);
    const KeyRange& range = keys[(e / 2) % 2];
    if (key < range.first || key > range.last) s[e] = -INFINITY;
  }
}

// Online softmax over one more key tile, as the teaching kernel's, without
// touching O (a wgmma may still be adding into it): the new running max, the
// factor O and the sum so far are rescaled by, and s becomes P = exp2(S·c - max·c),
// c = scale·log2 e.
__device__ __forceinline__ void online_softmax(Scores& s, float (&row_max)[2], float (&row_sum)[2],
                                               float (&rescale)[2], float scale_log2) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kCols / 8; ++j) tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * i], s[4 * j + 2 * i + 1]));
    const float new_max = fmaxf(row_max[i], quad_max(tile_max));
    // A row with nothing visible yet keeps max -inf; subtract 0 then, so exp2(-inf) = 0, not NaN.
    const float max_scaled = new_max == -INFINITY ? 0.f : new_max * scale_log2;
    rescale[i] = fast_exp2(row_max[i] * scale_log2 - max_scaled);
    row_max[i] = new_max;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kCols / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        float& x = s[4 * j + 2 * i + c];
        x = fast_exp2(fmaf(x, scale_log2, -max_scaled));
        sum += x;
      }
    row_sum[i] = row_sum[i] * rescale[i] + sum;
  }
}

template <int D>
__device__ __forceinline__ void rescale_output(Output<D>& o, const float (&rescale)[2]) {
#pragma unroll
  for (int e = 0; e < D / 2; ++e) o[e] *= rescale[(e / 2) % 2];
}

// P in 16 bits as wgmma's A operand from registers: the accumulator of keys
// 16kk..16kk+15 is, per warp, the A fragment of that 16-deep step (`steps` of
// them: 8 for the forward's 128 keys).
template <typename T, int steps>
__device__ __forceinline__ void probabilities_as_a(std::uint32_t (&pf)[steps][4], const float (&s)[steps * 8]) {
#pragma unroll
  for (int kk = 0; kk < steps; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) pf[kk][r] = pack_pair<T>(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
}

// Starts O += P·V: 8 wgmmas of 16 keys; V's rows are keys, read transposed (d
// contiguous), its two 64-wide d blocks one tile block apart; one commit group.
template <typename T, int D>
__device__ __forceinline__ void start_accumulate_pv(Output<D>& o, const ProbabilityFragments& pf,
                                                    const unsigned char* v_tile) {
  constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
#pragma unroll
  for (int kk = 0; kk < kCols / 16; ++kk) {
    const std::uint64_t b = matrix_descriptor(v_tile + kk * 16 * 128, SharedLayout<D>::block_bytes);
    wgmma_64xn_registers<bf16, D>(o, pf[kk], b);
  }
  wgmma_commit();
}

// O /= row sum, LSE = ln(sum) + max·scale (a row with no attended key: O = 0,
// LSE = -inf). The warpgroup stages its 64 rows in its own 64 rows of the item's
// Q tile (its last Q·Kᵀ is done; the other warpgroup reads only its own rows), then
// stores them 16 bytes per thread; rows past the row's extent are not stored.
template <typename T, int D>
__device__ __forceinline__ void store_output(const flash::Params& p, const Item& item, const Output<D>& o,
                                             const float (&row_max)[2], const float (&row_sum)[2],
                                             unsigned char* o_tile, int consumer, int thread) {
  const int warp = thread / 32, lane = thread % 32;
  float inv_sum[2], lse[2];  // 1/sum scales O; LSE = (max·c + log2 sum)·ln 2
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float total = quad_sum(row_sum[i]);
    const bool attended = total > 0.f;
    inv_sum[i] = attended ? __frcp_rn(total) : 0.f;
    lse[i] = attended ? fmaf(row_max[i], p.scale_log2, log2f(total)) * float(M_LN2) : -INFINITY;
  }
  const int first_row = 64 * consumer + 16 * warp + lane / 4;  // this thread's rows: first_row and first_row + 8
  sync_threads_of(1 + consumer, kWarpgroup);  // every warp's Q·Kᵀ reads of these rows are done
  stage_accumulator<T, D>(o_tile, o, first_row, inv_sum, lane);
  sync_threads_of(1 + consumer, kWarpgroup);
  const int q0 = item.q0 + 64 * consumer;  // the warpgroup's first row
  store_staged_rows<T, D>(static_cast<T*>(p.o) + (std::int64_t(item.row_begin + q0) * p.heads + item.head) * D,
                          std::int64_t(p.heads) * D, item.extent - q0, o_tile, 64 * consumer, thread);
  fence_shared_for_async();  // TMA writes the next Q over these rows after the release below
  if (lane % 4 == 0) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int q = item.q0 + first_row + 8 * i;
      if (q < item.extent) p.lse[std::int64_t(item.row_begin + q) * p.heads + item.head] = lse[i];
    }
  }
}

// One consumer warpgroup. Per item: wait for Q; per key tile j, on its turn, S_j = Q·K_jᵀ and
// O += P_{j-1}·V_{j-1} are issued together, and the softmax of S_j (the exp2s)
// runs while the tensor cores still add P_{j-1}·V_{j-1} into O; only then is O
// rescaled and P_j packed (FlashAttention-3's overlap inside a warpgroup). Each
// K and V stage is released as soon as its wgmma has read it. Then the output.
template <typename T, int D, ForwardFeatures F>
__device__ void consume(const Params& params, const Shared<D, F>& s, int consumer) {
  using L = SharedLayout<D, F>;
  const flash::Params& p = params.flash;
  const LayoutView& lv = p.layout;
  constexpr TileShape tile{kRows, kCols};
  const int thread = threadIdx.x - kWarpgroup * (1 + consumer);  // 0..127 in the warpgroup
  const int lane = thread % 32;
  const int first_row = 64 * consumer + 16 * (thread / 32) + lane / 4;
  const bool counter = p.counts && consumer == 0 && thread == 0;
  CellCounts counted;
  long long visited = 0;
  const auto stage_of = [](int t) { return t % L::stages; };
  const auto parity_of = [](int t) { return (t / L::stages) & 1; };
  // The two consumers take turns to issue their wgmmas (FlashAttention-3's scheduler
  // barrier), so one's matrix products run while the other's softmax does: consumer c
  // waits for its turn on barrier 3 + c and hands it over on the other's. Both issue
  // at the same points (one per key tile, one for an item's last P·V), so the turns
  // stay in step; consumer 0 starts with its turn. Without F.consumer_turns both issue when ready.
  const auto wait_turn = [&] {
    if constexpr (F.consumer_turns) sync_threads_of(3 + consumer, kConsumerThreads);
  };
  const auto pass_turn = [&] {
    if constexpr (F.consumer_turns) arrive_threads_of(4 - consumer, kConsumerThreads);
  };
  if (F.consumer_turns && consumer == 0) arrive_threads_of(3, kConsumerThreads);

  int tile_count = 0;  // K/V tiles consumed before this item
  for (int item_count = 0;; ++item_count) {
    const int buffer = item_count % L::q_buffers;
    barrier_wait(s.q_full(buffer), (item_count / L::q_buffers) & 1);
    if (s.item_slot(buffer)->done) break;
    const Item item = s.item_slot(buffer)->item;
    KeyRange keys[2];  // the keys each of this thread's two query rows attends
#pragma unroll
    for (int i = 0; i < 2; ++i) keys[i] = attended_keys(lv, item.work.row, item.q0 + first_row + 8 * i);
    Output<D> o = {};
    float row_max[2] = {-INFINITY, -INFINITY};  // raw scores
    float row_sum[2] = {0.f, 0.f};              // this thread's part of the row's sum
    float rescale[2];
    Scores scores = {};
    ProbabilityFragments pf;
    const int visits = item.key_tiles.count();
    // S_j is ready: release K_j, mask, count, softmax.
    const auto scores_to_probabilities = [&](int step) {
      barrier_arrive(s.k_empty(stage_of(tile_count + step)));
      const int k0 = (item.key_tiles.first + step) * kCols;
      if (tile_needs_mask(lv, item.work.row, item.q0, k0, tile)) mask_scores(scores, keys, k0, lane);
      if (counter) {
        counted += count_tile(lv, item.work.row, item.q0, k0, tile);
        ++visited;
      }
      online_softmax(scores, row_max, row_sum, rescale, p.scale_log2);
    };

    unsigned char* const q_tile = s.q(buffer);
    const unsigned char* q_rows = q_tile + 64 * consumer * 128;  // the warpgroup's 64 rows of each Q block
    for (int step = 0; step < visits; ++step) {
      const int t = tile_count + step;
      barrier_wait(s.k_full(stage_of(t)), parity_of(t));
      wait_turn();
      pin_registers(scores);
      wgmma_fence();
      start_scores_qk<T, D>(scores, q_rows, s.k(stage_of(t)));
      if (step > 0) {
        barrier_wait(s.v_full(stage_of(t - 1)), parity_of(t - 1));
        start_accumulate_pv<T, D>(o, pf, s.v(stage_of(t - 1)));
        pass_turn();
        // S_j is done; P_{j-1}·V_{j-1} may still run (without F.overlap_softmax: it is done too).
        wgmma_wait<F.overlap_softmax ? 1 : 0>();
      } else {
        pass_turn();
        wgmma_wait<0>();
      }
      pin_registers(scores);
      scores_to_probabilities(step);
      if (step > 0) {
        wgmma_wait<0>();
        pin_registers(o);
        pin_registers(pf);  // P_{j-1} stays where the wgmma read it until here
        barrier_arrive(s.v_empty(stage_of(t - 1)));
        rescale_output<D>(o, rescale);
      }
      probabilities_as_a<T>(pf, scores);
    }
    if (visits > 0) {  // the last tile's P·V
      const int t = tile_count + visits - 1;
      barrier_wait(s.v_full(stage_of(t)), parity_of(t));
      wait_turn();
      pin_registers(o);
      wgmma_fence();
      start_accumulate_pv<T, D>(o, pf, s.v(stage_of(t)));
      pass_turn();
      wgmma_wait<0>();
      pin_registers(o);
      barrier_arrive(s.v_empty(stage_of(t)));
    }
    tile_count += visits;
    store_output<T, D>(p, item, o, row_max, row_sum, q_tile, consumer, thread);
    barrier_arrive(s.q_empty(buffer));  // the item after next (with one buffer: the next) may load its Q here
  }
  if (counter) flash::add_counts(p.counts, counted, visited);
}

// ---- the kernel ----------------------------------------------------------------------

// `features`: features_key of the ForwardFeatures it is built with.
template <typename T, int D, int features = features_key(shipped_features(D))>
__global__ void __launch_bounds__(kThreads, 1) forward(const __grid_constant__ Params params, int total_items) {
  constexpr ForwardFeatures F = features_of_key(features);
  extern __shared__ unsigned char shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes: tiles start on a multiple of it.
  const Shared<D, F> s{shared_raw + ((1024 - shared_address(shared_raw) % 1024) % 1024)};
  using L = SharedLayout<D, F>;
  if (threadIdx.x == 0) {
    for (int buffer = 0; buffer < L::q_buffers; ++buffer) {
      barrier_init(s.q_full(buffer), 1);
      barrier_init(s.q_empty(buffer), kConsumerThreads);
    }
    for (int stage = 0; stage < L::stages; ++stage) {
      barrier_init(s.k_full(stage), 1);
      barrier_init(s.v_full(stage), 1);
      barrier_init(s.k_empty(stage), kConsumerThreads);
      barrier_init(s.v_empty(stage), kConsumerThreads);
    }
    fence_barrier_init();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / kWarpgroup;
  if (warpgroup == 0) {
    release_registers<kProducerRegisters>();
    if (threadIdx.x < 32) produce<T, D, F>(params, s, total_items);
  } else {
    claim_registers<kConsumerRegisters>();
    consume<T, D, F>(params, s, warpgroup - 1);
  }
}

}  // namespace attnlab::hopper
