#include "core/scenario.hpp"

#include <algorithm>
#include <climits>
#include <numeric>

#include "core/input_error.hpp"

namespace attnlab {

namespace {

[[noreturn]] void fail(const Scenario& s, const std::string& key, const std::string& message) {
  const std::string file = !s.source.empty() ? s.source.string() : !s.name.empty() ? s.name : "scenario";
  throw InputError(file + ": " + key + ": " + message);
}

void require_positive(const Scenario& s, const char* key, int value) {
  if (value <= 0) fail(s, key, "expected a positive integer, got " + std::to_string(value));
}

// Every layout indexes its buffer with int (as the kernels do), so no buffer may outgrow it.
void require_int_buffer(const Scenario& s, const char* layout, std::int64_t positions) {
  if (positions > INT_MAX)
    fail(s, "documents",
         std::string("expected at most ") + std::to_string(INT_MAX) + " positions in the " + layout +
             " layout, got " + std::to_string(positions));
}

// A window as a causal scenario takes it (left >= 1, right 0: `window = 512`) or a
// non-causal one ([left, right], each >= 0, not both 0); no window is {-1, -1}.
void require_window(const Scenario& s) {
  const Window w = s.window;
  if (!w.any()) return;
  if (s.causal) {
    if (w.left < 1 || w.right != 0)
      fail(s, "window", "expected a positive number of keys to the left for a causal scenario, got [" +
                            std::to_string(w.left) + ", " + std::to_string(w.right) + "]");
  } else if (w.left < 0 || w.right < 0 || (w.left == 0 && w.right == 0)) {
    fail(s, "window", "expected [left, right] with both >= 0 and not both 0 for a non-causal scenario, got [" +
                          std::to_string(w.left) + ", " + std::to_string(w.right) + "]");
  }
}

}  // namespace

int Scenario::padded_length() const {
  if (pad_to) return *pad_to;
  return doc_lengths.empty() ? 0 : *std::max_element(doc_lengths.begin(), doc_lengths.end());
}

std::int64_t Scenario::total_tokens() const {
  return std::accumulate(doc_lengths.begin(), doc_lengths.end(), std::int64_t{0});
}

std::int64_t Scenario::packed_rows_bound() const {
  if (packing == PackingPolicy::concatenate) return (total_tokens() + row_len - 1) / row_len;
  return static_cast<std::int64_t>(doc_lengths.size());
}

void Scenario::resolve() {
  require_positive(*this, "heads", heads);
  if (kv_heads <= 0 || heads % kv_heads != 0)
    fail(*this, "kv_heads",
         "expected a positive divisor of heads (" + std::to_string(heads) + "), got " + std::to_string(kv_heads));
  require_positive(*this, "head_dim", head_dim);
  require_positive(*this, "row_len", row_len);
  require_window(*this);
  doc_lengths = resolve_lengths(length_source, source);
  const int longest = *std::max_element(doc_lengths.begin(), doc_lengths.end());
  if (pad_to && *pad_to < longest)
    fail(*this, "pad_to",
         "expected \"longest\" or an integer >= the longest document (" + std::to_string(longest) + "), got " +
             std::to_string(*pad_to));
  const auto docs = static_cast<std::int64_t>(doc_lengths.size());
  require_int_buffer(*this, "varlen", total_tokens());
  require_int_buffer(*this, "padded", docs * padded_length());
  require_int_buffer(*this, "packed", packed_rows_bound() * row_len);
}

}  // namespace attnlab
