#pragma once
// Which part of a layout a reference computes (ReferenceOptions: some rows, some
// heads) and how it numbers what it stores, shared by the forward and backward
// references so both sample and index alike.
#include <cstdint>
#include <functional>
#include <vector>

#include "core/layout/layouts.hpp"
#include "reference/attention_inputs.hpp"

namespace attnlab {

// Throws unless the inputs have a GQA shape and cover every token the layout holds.
void check_reference_inputs(const Layout& layout, const AttentionInputs& inputs);

// The chosen indices sorted and deduplicated, or all of [0, limit) when none are chosen;
// throws std::out_of_range naming `what` for one outside [0, limit).
std::vector<int> chosen_or_all(std::vector<int> chosen, int limit, const char* what);

// Storage slots of the positions of the computed rows, numbered in buffer order.
struct PositionSlots {
  std::vector<char> row_computed;              // per layout row: 1 if computed
  std::vector<std::int64_t> slot_of_position;  // -1 outside the computed rows
  std::int64_t count = 0;
};
PositionSlots number_positions(const Layout& layout, const std::vector<int>& rows);

// slot[i] = index of i in `chosen` (sorted), -1 where i is not chosen; size `limit`.
std::vector<int> slots_of(const std::vector<int>& chosen, int limit);

// Runs work(row, head) for every (row, head) of the two lists on `threads` threads
// (0 = all hardware threads); the pairs must write disjoint outputs.
void for_each_row_head(const std::vector<int>& rows, const std::vector<int>& heads, int threads,
                       const std::function<void(int, int)>& work);

}  // namespace attnlab
