#include "gui/views/chain_bars.hpp"

namespace attnlab::gui {

std::optional<LinkUnit> unit_of_value(std::string_view value) {
  if (value.empty() || !(value[0] == '-' || (value[0] >= '0' && value[0] <= '9'))) return std::nullopt;
  if (value.ends_with("x")) return LinkUnit::ratio;
  if (value.ends_with("%")) return LinkUnit::percent;
  if (value.ends_with(" \xC2\xB5s")) return LinkUnit::microseconds;
  return std::nullopt;
}

std::vector<ChainBar> chain_bars(const std::vector<ChainLink>& chain, bool details) {
  std::vector<ChainBar> bars;
  LinkUnit last = LinkUnit::ratio;
  for (const ChainLink& link : chain) {
    last = unit_of_value(link.value).value_or(last);
    if (link.detail && !details) continue;
    bars.push_back({&link, last});
  }
  return bars;
}

}  // namespace attnlab::gui
