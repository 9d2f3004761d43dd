#pragma once
// The bytes a training step moves outside its matrix products and attention: the work
// varlen does not change. Counted as PyTorch's operations run one at a time (no fusion):
// forward, an elementwise operation reads its inputs and writes its output once; backward,
// it reads its input and the incoming gradient and writes the outgoing one. Priced at the
// copy ceiling it is a time for the rest of the step; a compiler that fuses operations moves
// fewer bytes, so the measured parts (train/) say how far fusion takes it. The rules, operation
// by operation: the top-level README.md, "From scores to step time".
#include <cstdint>

#include "core/scenario/model_shape.hpp"

namespace attnlab {

struct StepBytes {
  double elementwise = 0;  // embedding, RMSNorms, rotary, QK norm, residual adds, ReLU²: forward and backward
  double loss = 0;         // the logits cast to fp32, cross-entropy, its gradient and the cast back
  double optimizer = 0;    // AdamW: every parameter, its gradient and two moments read, three written
  double total() const { return elementwise + loss + optimizer; }
};

// The bytes of the step model's parameters, each at its dtype (attnlab/step/command.py): the matrix
// parameters in fp32 and the token embedding (vocab x width) in bf16. A gradient is of its
// parameter's dtype, so this is also the bytes of one step's gradients, what several GPUs all-reduce.
double parameter_bytes(const ModelShape& m);

// One step over `positions` buffer positions of model `m`, activations in bf16, the parameters
// as parameter_bytes counts them.
StepBytes step_bytes(const ModelShape& m, std::int64_t positions);

}  // namespace attnlab
