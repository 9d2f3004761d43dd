#include "kernels/wgmma_sm90/launch.cuh"

namespace attnlab::wgmma_sm90 {
template void launch_backward<__half, 64>(const flash::BackwardParams&, int);
template void launch_backward<__half, 128>(const flash::BackwardParams&, int);
}  // namespace attnlab::wgmma_sm90
