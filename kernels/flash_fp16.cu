#include "kernels/flash_launch.cuh"

namespace attnlab::flash {
template void launch_forward<__half, 64>(const Params&, int);
template void launch_forward<__half, 128>(const Params&, int);
}  // namespace attnlab::flash
