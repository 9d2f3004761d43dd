#pragma once
// The training step's chain (analysis/step_chain.hpp) as bars: each link's number, what it rests
// on (counted by the cost model, predicted, measured, or reported by the article) and its source,
// all read from the link itself; the unit from its value's text ("4.00x", "8.30%", "66,069 µs").
// Made from the list of links as it is, whatever links it holds: a link added to the chain is
// drawn without a change here.
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/step_chain.hpp"

namespace attnlab::gui {

enum class LinkUnit { ratio, percent, microseconds };  // packed / varlen; a share or saving; a time

// The unit of a link's value as the formatter wrote it; empty for "not measured" or other text.
std::optional<LinkUnit> unit_of_value(std::string_view value);

struct ChainBar {
  const ChainLink* link = nullptr;
  LinkUnit unit = LinkUnit::ratio;  // the value's; for "not measured", that of the link before it
};

// One bar per link, in the chain's order; `details`: the links marked as steps on the way too.
std::vector<ChainBar> chain_bars(const std::vector<ChainLink>& chain, bool details);

}  // namespace attnlab::gui
