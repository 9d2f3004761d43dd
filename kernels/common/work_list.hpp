#pragma once
// The flash kernels' schedule: one work item per (row, query tile) of a layout,
// taken from the layout's rows (cu_seqlens for varlen), not from a grid sized by
// the longest document. Rows with the most key tiles go first, so a long
// document does not start last and leave the GPU idling at the end; within a
// row, its query tiles follow each other (most key tiles first), so the CTAs
// running at one time share the row's K and V in L2 instead of each reading
// its own from device memory. The kernel runs every item for all heads before
// the next item.
#include <vector>

#include "core/layout/layouts.hpp"

namespace attnlab {

struct WorkItem {
  int row = 0;
  int query_tile = 0;
  bool operator==(const WorkItem&) const = default;
};

std::vector<WorkItem> flash_work_list(const Layout& layout, TileShape tile);

// The backwards' schedule: the same items read as (row, key tile) (a square tile),
// rows in the same order, within a row the key tiles that the most query tiles
// visit first (with a causal mask, the row's first key tile; in the forward's
// order it would come last and leave the GPU idling behind it).
std::vector<WorkItem> flash_backward_work_list(const Layout& layout, TileShape tile);

}  // namespace attnlab
