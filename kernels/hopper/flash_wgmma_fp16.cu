#include "kernels/hopper/flash_wgmma_launch.cuh"

namespace attnlab::hopper {
template void launch_forward<__half, 64>(const flash::Params&, int, std::int64_t);
template void launch_forward<__half, 128>(const flash::Params&, int, std::int64_t);
}  // namespace attnlab::hopper
