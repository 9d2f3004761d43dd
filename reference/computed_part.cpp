#include "reference/computed_part.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

namespace attnlab {

void check_reference_inputs(const Layout& layout, const AttentionInputs& in) {
  if (in.tokens < 0 || in.heads <= 0 || in.kv_heads <= 0 || in.heads % in.kv_heads != 0)
    throw std::invalid_argument("reference: inputs need heads a positive multiple of kv_heads");
  // A varlen layout's positions are the tokens in canonical order, so its last says it at once
  // (the context-parallel check asks once per step, N^2 times over a ring).
  if (layout.kind == LayoutKind::varlen) {
    if (layout.row_start.back() > in.tokens) throw std::out_of_range("reference: layout token beyond the inputs");
    return;
  }
  for (std::int64_t t : layout.token_source)
    if (t >= in.tokens) throw std::out_of_range("reference: layout token beyond the inputs");
}

std::vector<int> chosen_or_all(std::vector<int> chosen, int limit, const char* what) {
  if (chosen.empty()) {
    chosen.resize(limit);
    std::iota(chosen.begin(), chosen.end(), 0);
    return chosen;
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  if (chosen.front() < 0 || chosen.back() >= limit)
    throw std::out_of_range(std::string("reference: ") + what + " out of range [0, " + std::to_string(limit) + ")");
  return chosen;
}

PositionSlots number_positions(const Layout& layout, const std::vector<int>& rows) {
  PositionSlots s;
  s.row_computed.assign(layout.num_rows(), 0);
  s.slot_of_position.assign(layout.buffer_tokens(), -1);
  for (int r : rows) {
    s.row_computed[r] = 1;
    for (std::int64_t p = layout.row_start[r]; p < layout.row_start[r + 1]; ++p) s.slot_of_position[p] = s.count++;
  }
  return s;
}

std::vector<int> slots_of(const std::vector<int>& chosen, int limit) {
  std::vector<int> slot(limit, -1);
  for (std::size_t i = 0; i < chosen.size(); ++i) slot[chosen[i]] = static_cast<int>(i);
  return slot;
}

void for_each_row_head(const std::vector<int>& rows, const std::vector<int>& heads, int threads,
                       const std::function<void(int, int)>& work) {
  const std::size_t pairs = rows.size() * heads.size();
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<std::size_t>(threads, std::max<std::size_t>(pairs, 1)));
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < pairs;) work(rows[i / heads.size()], heads[i % heads.size()]);
  };
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
}

}  // namespace attnlab
