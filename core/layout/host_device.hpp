#pragma once
// Functions marked ATTNLAB_HD compile for both the host and CUDA kernels, so the
// CPU reference, the cost model, the kernels and the GUI share one definition.
#if defined(__CUDACC__)
#define ATTNLAB_HD __host__ __device__
#else
#define ATTNLAB_HD
#endif
