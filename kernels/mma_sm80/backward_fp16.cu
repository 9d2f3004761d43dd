#include "kernels/mma_sm80/launch.cuh"

namespace attnlab::mma_sm80 {
template void launch_backward<__half, 64>(const BackwardParams&, const flash::LaunchArgs&);
template void launch_backward<__half, 128>(const BackwardParams&, const flash::LaunchArgs&);
}  // namespace attnlab::mma_sm80
