#include "kernels/hopper/flash_wgmma_launch.cuh"

namespace attnlab::hopper {
template void launch_forward<__nv_bfloat16, 64>(const flash::Params&, int, std::int64_t);
template void launch_forward<__nv_bfloat16, 128>(const flash::Params&, int, std::int64_t);
}  // namespace attnlab::hopper
