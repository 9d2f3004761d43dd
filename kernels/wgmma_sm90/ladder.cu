// The rungs of the Hopper forward's and backward's ladders (rungs.hpp), each a kernel of
// its own, built for bf16 at head dim ladder_head_dim only.
#include "kernels/wgmma_sm90/launch.cuh"

namespace attnlab::wgmma_sm90 {
static_assert(forward_rung_count == 6, "one instantiation below per rung");
template void launch_forward_rung<1>(const flash::Params&, const flash::LaunchArgs&);
template void launch_forward_rung<2>(const flash::Params&, const flash::LaunchArgs&);
template void launch_forward_rung<3>(const flash::Params&, const flash::LaunchArgs&);
template void launch_forward_rung<4>(const flash::Params&, const flash::LaunchArgs&);
template void launch_forward_rung<5>(const flash::Params&, const flash::LaunchArgs&);
template void launch_forward_rung<6>(const flash::Params&, const flash::LaunchArgs&);
static_assert(backward_rung_count == 5, "one instantiation below per backward rung");
template void launch_backward_rung<1>(const flash::BackwardParams&, const flash::LaunchArgs&);
template void launch_backward_rung<2>(const flash::BackwardParams&, const flash::LaunchArgs&);
template void launch_backward_rung<3>(const flash::BackwardParams&, const flash::LaunchArgs&);
template void launch_backward_rung<4>(const flash::BackwardParams&, const flash::LaunchArgs&);
template void launch_backward_rung<5>(const flash::BackwardParams&, const flash::LaunchArgs&);
}  // namespace attnlab::wgmma_sm90
