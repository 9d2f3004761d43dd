#pragma once
// The flash kernels' schedule: one work item per (row, query tile) of a layout,
// taken from the layout's rows (cu_seqlens for varlen), not from a grid sized by
// the longest document. Items with the most key tiles go first, so the long
// items of causal rows do not start last and leave the GPU idling at the end.
#include <vector>

#include "core/layouts.hpp"

namespace attnlab {

struct WorkItem {
  int row = 0;
  int query_tile = 0;
  bool operator==(const WorkItem&) const = default;
};

std::vector<WorkItem> flash_work_list(const Layout& layout, TileShape tile);

}  // namespace attnlab
