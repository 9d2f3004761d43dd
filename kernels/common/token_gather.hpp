#pragma once
// Rows of a tensor in canonical token order, gathered into another buffer's order
// (kernels/common/device.cu): for gather_qkv and a context-parallel rank's buffers.
#include <cstddef>
#include <cstdint>

#include "kernels/attention.hpp"

namespace attnlab {

// Position i of `to` gets the `row_bytes` (a multiple of 16) of canonical token source[i]
// of `from`, or zeros where source[i] is -1; `source` lives on the device. Asynchronous, on `stream`.
void gather_token_rows(const std::int64_t* source, std::int64_t positions, std::size_t row_bytes, const void* from,
                       void* to, cudaStream_t stream);

}  // namespace attnlab
