#include "kernels/flash_backward_launch.cuh"

namespace attnlab::flash {
template void launch_backward<__nv_bfloat16, 64>(const BackwardParams&, int);
template void launch_backward<__nv_bfloat16, 128>(const BackwardParams&, int);
}  // namespace attnlab::flash
