#include "core/scenario/scenario_layouts.hpp"

namespace attnlab {

ScenarioLayouts::ScenarioLayouts(const Scenario& s)
    : padded(s.padded_layout()), packed(s.packed_layout()), varlen(s.varlen_layout()) {}

const Layout& ScenarioLayouts::of(LayoutKind kind) const {
  switch (kind) {
    case LayoutKind::padded: return padded;
    case LayoutKind::packed: return packed;
    case LayoutKind::varlen: return varlen;
  }
  return varlen;
}

}  // namespace attnlab
