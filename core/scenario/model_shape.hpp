#pragma once
// The transformer a scenario's batch trains (a scenario file's optional [model]
// table): enough of its shape to count the FLOPs of one training step the way
// nanochat does (the top-level README.md, "From scores to step time").
#include <cstdint>
#include <string>

namespace attnlab {

struct ModelShape {
  int layers = 24;
  int width = 1536;   // model dimension (n_embd)
  int heads = 12;     // query heads
  int kv_heads = 12;  // key/value heads (grouped-query attention when fewer)
  int head_dim = 128;
  int mlp_ratio = 4;  // MLP hidden width = mlp_ratio * width
  int vocab = 32768;
  int seq_len = 2048;  // nanochat's sequence_len: the T of its FLOP estimate
  // One letter per layer, repeated over the layers: S = short window, L = long
  // (whole sequence). The last layer is always long, as in nanochat.
  std::string window_pattern = "SSSL";
  int short_window = 512;  // keys before the query a short layer sees: window_size = (short_window, 0)

  bool operator==(const ModelShape&) const = default;
};

enum class LayerKind { short_window, long_context };
inline constexpr LayerKind all_layer_kinds[] = {LayerKind::short_window, LayerKind::long_context};
inline const char* layer_kind_name(LayerKind k) { return k == LayerKind::short_window ? "short" : "long"; }

// Kind of layer `layer` (0-based): the pattern's letter, except the last layer, which is long.
LayerKind layer_kind(const ModelShape& m, int layer);
int layers_of_kind(const ModelShape& m, LayerKind kind);

// Weights that multiply the token stream: per block Q, K, V and the output
// projection (width x (heads + 2 kv_heads + heads) * head_dim) and the MLP's two
// matrices (2 * mlp_ratio * width^2), times layers, plus the LM head (width x vocab).
// The token embedding is a lookup and is left out, as nanochat leaves it out.
std::int64_t matrix_params(const ModelShape& m);

// Checks every field against the limits scenarios/README.md states; throws
// InputError "WHERE: model.KEY: expected ..., got ..." for the first bad one.
void check_model_shape(const ModelShape& m, const std::string& where);

}  // namespace attnlab
