#include "kernels/wgmma_sm90/launch.cuh"

namespace attnlab::wgmma_sm90 {
template void launch_forward<__half, 64>(const flash::Params&, int, std::int64_t);
template void launch_forward<__half, 128>(const flash::Params&, int, std::int64_t);
}  // namespace attnlab::wgmma_sm90
