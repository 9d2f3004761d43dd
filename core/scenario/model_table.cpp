#include "core/scenario/model_table.hpp"

#include <sstream>

#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

// The integer keys of [model], each a field of ModelShape; all are required but kv_heads.
struct IntegerKey {
  const char* key;
  int ModelShape::*field;
};
constexpr IntegerKey integer_keys[] = {
    {"layers", &ModelShape::layers},
    {"width", &ModelShape::width},
    {"heads", &ModelShape::heads},
    {"kv_heads", &ModelShape::kv_heads},
    {"head_dim", &ModelShape::head_dim},
    {"mlp_ratio", &ModelShape::mlp_ratio},
    {"vocab", &ModelShape::vocab},
    {"seq_len", &ModelShape::seq_len},
    {"short_window", &ModelShape::short_window},
};

// The value as TOML writes it, for "got ..." in messages (strings quoted, tables and arrays named).
std::string got(const toml::node& n) {
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  if (const auto* text = n.as_string()) {
    std::string shown = "\"";  // printable, so the message stays one line
    for (const char ch : text->get().substr(0, 64)) shown += (ch >= 0x20 && ch < 0x7f) ? ch : '?';
    return shown + "\"";
  }
  std::ostringstream out;
  n.visit([&](const auto& v) { out << v; });
  return out.str();
}

}  // namespace

ModelShape read_model_table(const toml::node& node, const std::string& file) {
  const auto fail = [&](const std::string& key, const std::string& message) -> void {
    throw InputError(file + ": model" + (key.empty() ? "" : "." + key) + ": " + message);
  };
  const toml::table* table = node.as_table();
  if (!table) fail("", "expected a [model] table, got " + got(node));
  std::string known;
  for (const IntegerKey& k : integer_keys) known += std::string(k.key) + ", ";
  known += "window_pattern";
  for (auto&& [key, value] : *table) {
    bool is_known = key.str() == "window_pattern";
    for (const IntegerKey& k : integer_keys) is_known |= key.str() == k.key;
    if (!is_known) fail(std::string(key.str()), "unknown key; expected one of " + known);
  }

  ModelShape m;
  for (const IntegerKey& k : integer_keys) {
    const toml::node* n = table->get(k.key);
    if (!n) {
      if (std::string_view(k.key) == "kv_heads") continue;  // defaults to heads, below
      fail(k.key, "missing; expected a positive integer");
    }
    const auto v = n->value_exact<std::int64_t>();
    if (!v || *v < 1 || *v > (std::int64_t{1} << 30)) fail(k.key, "expected a positive integer, got " + got(*n));
    m.*k.field = static_cast<int>(*v);
  }
  if (!table->get("kv_heads")) m.kv_heads = m.heads;
  const toml::node* pattern = table->get("window_pattern");
  if (!pattern) fail("window_pattern", "missing; expected letters S (short window) and L (long), e.g. \"SSSL\"");
  if (!pattern->is_string()) fail("window_pattern", "expected letters S and L in a string, got " + got(*pattern));
  m.window_pattern = pattern->as_string()->get();
  check_model_shape(m, file);
  return m;
}

std::string model_table_toml(const ModelShape& m) {
  std::ostringstream out;
  out << "[model]\n";
  for (const IntegerKey& k : integer_keys) out << k.key << " = " << m.*k.field << "\n";
  out << "window_pattern = \"" << m.window_pattern << "\"\n";
  return out.str();
}

}  // namespace attnlab
