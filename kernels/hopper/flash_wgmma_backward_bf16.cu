#include "kernels/hopper/flash_wgmma_backward_launch.cuh"

namespace attnlab::hopper {
template void launch_backward<__nv_bfloat16, 64>(const flash::BackwardParams&, int);
template void launch_backward<__nv_bfloat16, 128>(const flash::BackwardParams&, int);
}  // namespace attnlab::hopper
