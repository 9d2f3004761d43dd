#include "kernels/flash_backward_launch.cuh"

namespace attnlab::flash {
template void launch_backward<__half, 64>(const BackwardParams&, int);
template void launch_backward<__half, 128>(const BackwardParams&, int);
}  // namespace attnlab::flash
