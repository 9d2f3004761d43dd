#pragma once
// The forward's epilogue, run by each consumer warpgroup at the end of an item: O
// divided by the row sums and the LSE (finish_softmax), O staged in the warpgroup's
// own 64 rows of the item's Q tile (its last Q·Kᵀ is done; the other warpgroup reads
// only its own rows), then stored 16 bytes per thread in whole lines; rows past the
// row's queries are not stored. With `fold`, folded into running sums instead (Params::o_sums).
#include <cstdint>

#include "kernels/common/output_sums.cuh"
#include "kernels/common/softmax.cuh"
#include "kernels/wgmma_sm90/barriers.cuh"
#include "kernels/wgmma_sm90/shared_memory.cuh"

namespace attnlab::wgmma_sm90 {

template <typename T, int D, bool fold>
__device__ __forceinline__ void store_output(const flash::Params& p, const Item& item, const float (&o)[D / 2],
                                             const float (&row_max)[2], const float (&row_sum)[2],
                                             unsigned char* o_tile, int consumer, int thread) {
  const int warp = thread / 32, lane = thread % 32;
  float inv_sum[2], lse[2];
  flash::finish_softmax(row_max, row_sum, p.scale_log2, inv_sum, lse);
  const int first_row = 64 * consumer + 16 * warp + lane / 4;  // this thread's rows: first_row and first_row + 8
  if constexpr (fold) {  // a context-parallel launch: into the rank's sums, from registers (no staging)
    flash::fold_into_sums<D>(p, item, first_row, o, inv_sum, lse, lane);
    return;
  }
  sync_threads_of(rows_barrier(consumer), kWarpgroup);  // every warp's Q·Kᵀ reads of these rows are done
  stage_accumulator<T, D>(o_tile, o, first_row, inv_sum, lane);
  sync_threads_of(rows_barrier(consumer), kWarpgroup);
  const int q0 = item.q0 + 64 * consumer;  // the warpgroup's first row
  store_staged_rows<T, D>(static_cast<T*>(p.o) + (std::int64_t(item.query_begin + q0) * p.heads + item.head) * D,
                          std::int64_t(p.heads) * D, item.query_extent - q0, o_tile, 64 * consumer, thread);
  fence_shared_for_async();  // TMA writes the next Q over these rows after the release below
  if (lane % 4 == 0) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int q = item.q0 + first_row + 8 * i;
      if (q < item.query_extent) p.lse[std::int64_t(item.query_begin + q) * p.heads + item.head] = lse[i];
    }
  }
}

}  // namespace attnlab::wgmma_sm90
