// Moving Q, K, V in and O, LSE out: 16-bit bits on the device, floats on the host.
#include <cmath>
#include <stdexcept>

#include "core/numeric.hpp"
#include "kernels/attention.hpp"

namespace attnlab {

void upload_values(DeviceBuffer& buffer, const std::vector<float>& values, DType dtype) {
  if (values.size() * dtype_bytes(dtype) != buffer.bytes())
    throw std::invalid_argument("upload: " + std::to_string(values.size()) + " values for a buffer of " +
                                std::to_string(buffer.bytes()) + " bytes");
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = float_to_dtype_bits(values[i], dtype);
  buffer.upload(bits.data(), bits.size() * sizeof(std::uint16_t));
}

std::vector<float> download_values(const DeviceBuffer& buffer, DType dtype) {
  std::vector<std::uint16_t> bits(buffer.bytes() / sizeof(std::uint16_t));
  buffer.download(bits.data(), buffer.bytes());
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = dtype_bits_to_float(bits[i], dtype);
  return out;
}

void upload_qkv(AttentionTensors& t, DType dtype, const std::vector<float>& q, const std::vector<float>& k,
                const std::vector<float>& v) {
  upload_values(t.q, q, dtype);
  upload_values(t.k, k, dtype);
  upload_values(t.v, v, dtype);
}

std::vector<float> download_o(const AttentionTensors& t, DType dtype) { return download_values(t.o, dtype); }

std::vector<float> download_lse(const AttentionTensors& t) {
  std::vector<float> out(t.lse.bytes() / sizeof(float));
  t.lse.download(out.data(), t.lse.bytes());
  return out;
}

WrittenOutputs check_written(const Layout& layout, const AttentionProblem& problem, const std::vector<float>& o,
                             const std::vector<float>& lse) {
  const int H = problem.heads, D = problem.head_dim;
  const std::size_t pairs = std::size_t(layout.buffer_tokens()) * H;
  if (o.size() != pairs * D || lse.size() != pairs)
    throw std::invalid_argument("check_written: O or LSE does not hold the layout's positions x heads");
  WrittenOutputs w;
  for (std::int64_t pos = 0; pos < layout.buffer_tokens(); ++pos)
    for (int h = 0; h < H; ++h) {
      const float* out = o.data() + (pos * H + h) * D;
      const float l = lse[pos * H + h];
      if (layout.token_source[pos] >= 0) {
        bool finite = std::isfinite(l);
        for (int d = 0; d < D; ++d) finite = finite && std::isfinite(out[d]);
        w.unwritten += !finite;
      } else {
        bool zero = l == -INFINITY;
        for (int d = 0; d < D; ++d) zero = zero && out[d] == 0.f;
        w.padding_not_zero += !zero;
      }
    }
  return w;
}

}  // namespace attnlab
