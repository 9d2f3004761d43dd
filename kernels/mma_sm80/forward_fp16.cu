#include "kernels/mma_sm80/launch.cuh"

namespace attnlab::mma_sm80 {
template void launch_forward<__half, 64>(const Params&, int);
template void launch_forward<__half, 128>(const Params&, int);
}  // namespace attnlab::mma_sm80
