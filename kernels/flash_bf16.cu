#include "kernels/flash_launch.cuh"

namespace attnlab::flash {
template void launch_forward<__nv_bfloat16, 64>(const Params&, int);
template void launch_forward<__nv_bfloat16, 128>(const Params&, int);
}  // namespace attnlab::flash
