// kernels/context_parallel.hpp: a step's pieces on the device, and its Q, K and V gathered
// from tensors in canonical token order.
#include <string>

#include "kernels/common/token_gather.hpp"
#include "kernels/context_parallel.hpp"

namespace attnlab {

namespace {

DeviceBuffer upload_tokens(const std::vector<std::int64_t>& tokens) {
  DeviceBuffer buffer(tokens.size() * sizeof(std::int64_t));
  buffer.upload(tokens.data(), buffer.bytes());
  return buffer;
}

// Refuses before any of Q, K, V is allocated, with the bytes of all three.
const DeviceCpPieces& fitting_step(const DeviceCpPieces& pieces, const AttentionProblem& p) {
  const CpPieceLayouts& h = pieces.host();
  const std::size_t bytes = (std::size_t(h.query_tokens) * p.heads + 2 * std::size_t(h.key_tokens) * p.kv_heads) *
                            p.head_dim * dtype_bytes(p.dtype);
  require_device_memory(bytes, "a context-parallel step's Q, K and V (" + std::to_string(h.query_tokens) +
                                   " queries, " + std::to_string(h.key_tokens) + " keys) need");
  return pieces;
}

}  // namespace

DeviceCpPieces::DeviceCpPieces(const CpPieceLayouts& pieces, TileShape work_tile)
    : host_(&pieces), query_source_(upload_tokens(pieces.query_source)), key_source_(upload_tokens(pieces.key_source)) {
  rounds_.reserve(pieces.rounds.size());
  for (const Layout& round : pieces.rounds) rounds_.emplace_back(round, work_tile);
}

CpStepTensors::CpStepTensors(const DeviceCpPieces& pieces, const AttentionTensors& canonical, const AttentionProblem& p,
                             cudaStream_t stream)
    : q(std::size_t(fitting_step(pieces, p).host().query_tokens) * p.heads * p.head_dim * dtype_bytes(p.dtype)),
      k(std::size_t(pieces.host().key_tokens) * p.kv_heads * p.head_dim * dtype_bytes(p.dtype)),
      v(k.bytes()) {
  const std::size_t q_row = std::size_t(p.heads) * p.head_dim * dtype_bytes(p.dtype);
  const std::size_t kv_row = std::size_t(p.kv_heads) * p.head_dim * dtype_bytes(p.dtype);
  if (canonical.q.bytes() != std::size_t(canonical.positions) * q_row ||
      canonical.k.bytes() != std::size_t(canonical.positions) * kv_row)
    throw std::invalid_argument("CpStepTensors: the canonical tensors are not of this problem's heads and head dim");
  for (const std::int64_t t : pieces.host().query_source)
    if (t >= canonical.positions) throw std::invalid_argument("CpStepTensors: a piece reads past the canonical tokens");
  for (const std::int64_t t : pieces.host().key_source)
    if (t >= canonical.positions) throw std::invalid_argument("CpStepTensors: a piece reads past the canonical tokens");
  gather_token_rows(pieces.query_source(), pieces.host().query_tokens, q_row, canonical.q.data(), q.data(), stream);
  gather_token_rows(pieces.key_source(), pieces.host().key_tokens, kv_row, canonical.k.data(), k.data(), stream);
  gather_token_rows(pieces.key_source(), pieces.host().key_tokens, kv_row, canonical.v.data(), v.data(), stream);
}

}  // namespace attnlab
