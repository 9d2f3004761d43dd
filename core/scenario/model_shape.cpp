#include "core/scenario/model_shape.hpp"

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"

namespace attnlab {

LayerKind layer_kind(const ModelShape& m, int layer) {
  if (layer == m.layers - 1) return LayerKind::long_context;
  const char letter = m.window_pattern[static_cast<std::size_t>(layer) % m.window_pattern.size()];
  return letter == 'S' ? LayerKind::short_window : LayerKind::long_context;
}

int layers_of_kind(const ModelShape& m, LayerKind kind) {
  int n = 0;
  for (int layer = 0; layer < m.layers; ++layer) n += layer_kind(m, layer) == kind;
  return n;
}

std::int64_t matrix_params(const ModelShape& m) {
  const std::int64_t width = m.width, attention_width = std::int64_t(m.heads) * m.head_dim,
                     kv_width = std::int64_t(m.kv_heads) * m.head_dim;
  const std::int64_t attention = width * (attention_width + 2 * kv_width) + attention_width * width;
  const std::int64_t mlp = 2 * width * (std::int64_t(m.mlp_ratio) * width);
  return m.layers * (attention + mlp) + width * m.vocab;
}

void check_model_shape(const ModelShape& m, const std::string& where) {
  const auto fail = [&](const char* key, const std::string& expected, const std::string& got) {
    throw InputError(where + ": model." + key + ": expected " + expected + ", got " + got);
  };
  // The limits (core/io/input_limits.hpp) keep every count of the step model inside int64 and
  // exact in a double; heads and head_dim are the scenario's, since each layer is modelled as one.
  const auto range = [&](const char* key, int value, std::int64_t most) {
    if (value < 1 || value > most) fail(key, "an integer from 1 to " + std::to_string(most), std::to_string(value));
  };
  range("layers", m.layers, max_model_layers);
  range("width", m.width, max_model_width);
  range("heads", m.heads, max_heads);
  if (m.kv_heads < 1 || m.heads % m.kv_heads != 0)
    fail("kv_heads", "a positive divisor of heads (" + std::to_string(m.heads) + ")", std::to_string(m.kv_heads));
  range("head_dim", m.head_dim, max_head_dim);
  range("mlp_ratio", m.mlp_ratio, max_mlp_ratio);
  range("vocab", m.vocab, max_vocab);
  range("seq_len", m.seq_len, max_row_length);
  range("short_window", m.short_window, max_window);
  if (m.window_pattern.empty() || std::int64_t(m.window_pattern.size()) > max_window_pattern ||
      m.window_pattern.find_first_not_of("SL") != std::string::npos) {
    std::string shown;  // printable, so the message stays one line
    for (const char ch : m.window_pattern.substr(0, 64)) shown += (ch >= 0x20 && ch < 0x7f) ? ch : '?';
    fail("window_pattern", "1 to " + std::to_string(max_window_pattern) + " letters S (short window) or L (long)",
         "\"" + shown + "\"");
  }
}

}  // namespace attnlab
