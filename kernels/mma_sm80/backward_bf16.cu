#include "kernels/mma_sm80/launch.cuh"

namespace attnlab::mma_sm80 {
template void launch_backward<__nv_bfloat16, 64>(const BackwardParams&, const flash::LaunchArgs&);
template void launch_backward<__nv_bfloat16, 128>(const BackwardParams&, const flash::LaunchArgs&);
}  // namespace attnlab::mma_sm80
