// run_flash: fills the kernel's parameters from the layout and the problem and
// picks the instantiation for the dtype and head dim.
#include <cmath>

#include "core/cost_model.hpp"
#include "kernels/attention.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/flash_launch.hpp"

namespace attnlab {

static_assert(flash::kRows == flash_tile.rows && flash::kCols == flash_tile.cols,
              "the work list and the cost model use the kernel's tile");
static_assert(flash_tile == default_flash_tile, "the cost model's default tile is the kernels' tile");

void run_flash(const DeviceLayout& layout, const AttentionProblem& problem, AttentionTensors& t,
               KernelCounts* counts) {
  problem.validate();
  if (t.positions != layout.host().buffer_tokens())
    throw std::invalid_argument("run_flash: tensors hold " + std::to_string(t.positions) +
                                " positions, the layout " + std::to_string(layout.host().buffer_tokens()));
  DeviceBuffer counters;
  flash::Params p{};
  p.layout = layout.view();
  p.work = static_cast<const WorkItem*>(layout.work_list());
  p.heads = problem.heads;
  p.kv_heads = problem.kv_heads;
  p.scale_log2 = problem.softmax_scale() * static_cast<float>(M_LOG2E);
  p.q = t.q.data();
  p.k = t.k.data();
  p.v = t.v.data();
  p.o = t.o.data();
  p.lse = static_cast<float*>(t.lse.data());
  if (counts) {
    counters = DeviceBuffer(sizeof(flash::DeviceCounts));
    CUDA_CHECK(cudaMemset(counters.data(), 0, sizeof(flash::DeviceCounts)));
    p.counts = static_cast<flash::DeviceCounts*>(counters.data());
  }
  const int items = layout.work_items();
  const bool bf16 = problem.dtype == DType::bf16;
  if (problem.head_dim == 64)
    bf16 ? flash::launch_forward<__nv_bfloat16, 64>(p, items) : flash::launch_forward<__half, 64>(p, items);
  else
    bf16 ? flash::launch_forward<__nv_bfloat16, 128>(p, items) : flash::launch_forward<__half, 128>(p, items);
  if (counts) {
    flash::DeviceCounts c{};
    counters.download(&c, sizeof c);
    counts->visited_tiles = static_cast<std::int64_t>(c.visited_tiles);
    for (int kind = 0; kind < computed_kind_count; ++kind) counts->cells.n[kind] = static_cast<std::int64_t>(c.cells[kind]);
  }
}

}  // namespace attnlab
