#include "kernels/mma_sm80/launch.cuh"

namespace attnlab::mma_sm80 {
template void launch_forward<__nv_bfloat16, 64>(const Params&, const flash::LaunchArgs&);
template void launch_forward<__nv_bfloat16, 128>(const Params&, const flash::LaunchArgs&);
}  // namespace attnlab::mma_sm80
