#include "kernels/mma_sm80/launch.cuh"

namespace attnlab::mma_sm80 {
template void launch_forward<__half, 64>(const Params&, const flash::LaunchArgs&);
template void launch_forward<__half, 128>(const Params&, const flash::LaunchArgs&);
}  // namespace attnlab::mma_sm80
