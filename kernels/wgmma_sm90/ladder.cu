// The rungs of the Hopper forward's ladder (rungs.hpp), each a kernel of its own,
// built for bf16 at head dim ladder_head_dim only.
#include "kernels/wgmma_sm90/launch.cuh"

namespace attnlab::wgmma_sm90 {

void launch_forward_rung(int rung, const char* kernel, const flash::Params& params, int work_items,
                         std::int64_t positions, bool bf16, int head_dim) {
  if (!bf16 || head_dim != ladder_head_dim)
    throw InputError(std::string("--kernel ") + kernel + ": the ladder's rungs are built for bf16 d" +
                     std::to_string(ladder_head_dim) + " only, not " + (bf16 ? "bf16" : "fp16") + " d" +
                     std::to_string(head_dim));
  with_rung_features(
      rung,
      [&]<ForwardFeatures F>() {
        // The launch line says which rung ran, what it adds and its features.
        const ForwardRung& r = forward_rungs[rung - 1];
        const std::string what = std::string(kernel) + " " + flash::instance_name<__nv_bfloat16, ladder_head_dim>() +
                                 " (adds: " + r.idea + "; " + describe_features(r.features) + ")";
        launch_forward_with<__nv_bfloat16, ladder_head_dim, F>(params, work_items, positions, what);
      },
      std::make_index_sequence<forward_rung_count>());
}

}  // namespace attnlab::wgmma_sm90
