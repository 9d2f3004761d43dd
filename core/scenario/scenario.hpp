#pragma once
// A scenario: one list of document lengths and the attention shape run over it.
// Read from the TOML files in scenarios/ (schema: scenarios/README.md).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layouts.hpp"
#include "core/scenario/length_source.hpp"
#include "core/scenario/model_shape.hpp"

namespace attnlab {

enum class DType { bf16, fp16 };
inline const char* dtype_name(DType d) { return d == DType::bf16 ? "bf16" : "fp16"; }
inline std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "bf16") return DType::bf16;
  if (name == "fp16") return DType::fp16;
  return std::nullopt;
}
inline int dtype_bytes(DType) { return 2; }

struct Scenario {
  std::string name;              // file stem
  std::string why;               // one sentence: what this scenario teaches
  std::filesystem::path source;  // the file it was read from (empty when built in code)

  int heads = 16;
  int kv_heads = 16;
  int head_dim = 128;
  DType dtype = DType::bf16;
  bool causal = true;
  Window window;  // FlashAttention's window_size (left, right); none by default (scenarios/README.md)

  int row_len = 4096;  // packed rows
  PackingPolicy packing = PackingPolicy::concatenate;
  std::optional<int> pad_to;  // padded rows: empty = the longest document

  LengthSource length_source;  // what the file says; doc_lengths is what it yields
  std::vector<int> doc_lengths;

  std::optional<ModelShape> model;  // the [model] table: the transformer this batch trains (attnlab step)

  // Recomputes doc_lengths from length_source and checks every value (the GUI
  // calls it after an edit). Throws InputError naming the file and the key.
  void resolve();

  int padded_length() const;  // pad_to, or the longest document
  std::int64_t total_tokens() const;
  // Rows of the packed layout: exact for concatenate; best fit opens at most one per document.
  std::int64_t packed_rows_bound() const;
  Layout padded_layout() const { return make_padded_layout(doc_lengths, padded_length(), causal, window); }
  Layout packed_layout() const { return make_packed_layout(doc_lengths, row_len, packing, causal, window); }
  Layout varlen_layout() const { return make_varlen_layout(doc_lengths, causal, window); }
};

}  // namespace attnlab
