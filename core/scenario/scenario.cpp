#include "core/scenario/scenario.hpp"

#include <algorithm>
#include <numeric>

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"

namespace attnlab {

namespace {

[[noreturn]] void fail(const Scenario& s, const std::string& key, const std::string& message) {
  const std::string file = printable(!s.source.empty() ? s.source.string()
                                     : !s.name.empty() ? s.name
                                                       : "scenario",
                                     4096);
  throw InputError(file + ": " + key + ": " + message);
}

void require_in_range(const Scenario& s, const char* key, std::int64_t value, std::int64_t largest) {
  if (value <= 0 || value > largest)
    fail(s, key,
         "expected a positive integer of at most " + std::to_string(largest) + ", got " + std::to_string(value));
}

// The layouts are built in memory and counted cell by cell type: a limit on their size keeps
// both to seconds and every count inside int64 (core/io/input_limits.hpp says why).
// `what` says what `positions` counts when it is not the layout's exact size (best fit's bound before packing).
void require_layout_fits(const Scenario& s, const char* layout, std::int64_t positions, const std::string& what = "") {
  if (positions > max_layout_positions)
    fail(s, "documents",
         std::string("expected at most ") + std::to_string(max_layout_positions) + " positions in the " + layout +
             " layout, got " + std::to_string(positions) + what);
}

// A window as a causal scenario takes it (left >= 1, right 0: `window = 512`) or a
// non-causal one ([left, right], each >= 0, not both 0); no window is {-1, -1}.
void require_window(const Scenario& s) {
  const Window w = s.window;
  if (!w.any()) return;
  if (w.left > max_window || w.right > max_window)
    fail(s, "window",
         "expected at most " + std::to_string(max_window) + " keys on a side, got [" + std::to_string(w.left) + ", " +
             std::to_string(w.right) + "]");
  if (s.causal) {
    if (w.left < 1 || w.right != 0)
      fail(s, "window",
           "expected a positive number of keys to the left for a causal scenario, got [" + std::to_string(w.left) +
               ", " + std::to_string(w.right) + "]");
  } else if (w.left < 0 || w.right < 0 || (w.left == 0 && w.right == 0)) {
    fail(s, "window",
         "expected [left, right] with both >= 0 and not both 0 for a non-causal scenario, got [" +
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
  // Best fit opens a row only when no row has room, so no two rows end at most half full (the
  // later one's first document, at most half a row, would have fitted in the earlier one):
  // every row but one holds more than row_len / 2 of the cropped tokens, and
  // rows <= ceil(2 * cropped tokens / row_len). It also opens at most one row per document.
  std::int64_t cropped = 0;
  for (const int length : doc_lengths) cropped += std::min(length, row_len);
  return std::min(static_cast<std::int64_t>(doc_lengths.size()), (2 * cropped + row_len - 1) / row_len);
}

// Every value is bounded before it is multiplied: heads, head_dim, row_len and pad_to here,
// then the documents by resolve_lengths (count <= max_documents, each <= max_row_length),
// so the products below are below 2^45 and cannot overflow int64.
void Scenario::resolve() {
  require_in_range(*this, "heads", heads, max_heads);
  if (kv_heads <= 0 || heads % kv_heads != 0)
    fail(*this, "kv_heads",
         "expected a positive divisor of heads (" + std::to_string(heads) + "), got " + std::to_string(kv_heads));
  require_in_range(*this, "head_dim", head_dim, max_head_dim);
  require_in_range(*this, "row_len", row_len, max_row_length);
  if (pad_to && (*pad_to <= 0 || *pad_to > max_row_length))
    fail(*this, "pad_to",
         "expected \"longest\" or a positive integer of at most " + std::to_string(max_row_length) + ", got " +
             std::to_string(*pad_to));
  require_window(*this);
  doc_lengths = resolve_lengths(length_source, source);
  const int longest = *std::max_element(doc_lengths.begin(), doc_lengths.end());
  if (pad_to && *pad_to < longest)
    fail(*this, "pad_to",
         "expected \"longest\" or an integer >= the longest document (" + std::to_string(longest) + "), got " +
             std::to_string(*pad_to));
  const auto docs = static_cast<std::int64_t>(doc_lengths.size());
  require_layout_fits(*this, "varlen", total_tokens());
  require_layout_fits(*this, "padded", docs * padded_length());
  require_layout_fits(*this, "packed", packed_rows_bound() * row_len,
                      packing == PackingPolicy::best_fit
                          ? " as bounded before packing (rows <= min(documents, 2 x tokens / row_len), cropped)"
                          : "");
  if (row_len * docs > max_row_len_times_documents)
    fail(*this, "row_len",
         "expected row_len x documents of at most " + std::to_string(max_row_len_times_documents) +
             " (the packed layout is counted per row and document piece), got " + std::to_string(row_len) + " x " +
             std::to_string(docs));
}

}  // namespace attnlab
