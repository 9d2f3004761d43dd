// Moving Q, K, V in and O, LSE out: 16-bit bits on the device, floats on the host.
#include <stdexcept>

#include "core/scenario/numeric.hpp"
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

}  // namespace attnlab
