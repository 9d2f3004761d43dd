#include "kernels/hopper/flash_wgmma_backward_launch.cuh"

namespace attnlab::hopper {
template void launch_backward<__half, 64>(const flash::BackwardParams&, int);
template void launch_backward<__half, 128>(const flash::BackwardParams&, int);
}  // namespace attnlab::hopper
