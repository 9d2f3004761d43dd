#include "kernels/mma_sm80/launch.cuh"

namespace attnlab::mma_sm80 {
template void launch_forward<__nv_bfloat16, 64>(const Params&, int);
template void launch_forward<__nv_bfloat16, 128>(const Params&, int);
}  // namespace attnlab::mma_sm80
