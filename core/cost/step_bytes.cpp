#include "core/cost/step_bytes.hpp"

namespace attnlab {

namespace {

constexpr double activation_bytes = 2;                                       // bf16
constexpr double matrix_parameter_bytes = 4, embedding_parameter_bytes = 2;  // fp32, bf16
// AdamW per parameter: reads the parameter, its gradient and both moments, writes the
// parameter and both moments, all in the parameter's dtype.
constexpr double adamw_accesses = 7;

}  // namespace

double parameter_bytes(const ModelShape& m) {
  return matrix_parameter_bytes * double(matrix_params(m)) + embedding_parameter_bytes * double(m.vocab) * m.width;
}

StepBytes step_bytes(const ModelShape& m, std::int64_t positions) {
  const double w = m.width, qk = double(m.heads + m.kv_heads) * m.head_dim, hidden = double(m.mlp_ratio) * m.width;
  // Elements touched per position and layer. Forward: two RMSNorms of the residual stream
  // (read, write), rotary and then the QK norm on q and k (read, write each), two residual
  // adds (two reads, a write), ReLU² on the MLP's hidden layer (read, write).
  const double layer_fwd = 2 * (2 * w) + 2 * (2 * qk) + 2 * (3 * w) + 2 * hidden;
  // Backward: each of those unary operations reads its input and the incoming gradient and
  // writes the outgoing one; each residual add becomes the sum of two gradients.
  const double layer_bwd = 3 * (2 * w + 2 * qk + hidden) + 2 * (3 * w);
  // Outside the layers: the embedding's gather and its gradient's scatter-add, and the
  // RMSNorms after the embedding and before the LM head.
  const double outside = 3 * (2 * w) + 3 * (3 * w);
  StepBytes b;
  b.elementwise = activation_bytes * double(positions) * (m.layers * (layer_fwd + layer_bwd) + outside);
  // Per logit: the cast to fp32 (read 2, write 4), cross-entropy (read 4); its gradient
  // (read 4, write 4) and the cast back (read 4, write 2).
  b.loss = 24.0 * double(positions) * m.vocab;
  b.optimizer = adamw_accesses * parameter_bytes(m);
  return b;
}

}  // namespace attnlab
