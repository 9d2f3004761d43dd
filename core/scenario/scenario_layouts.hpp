#pragma once
// A scenario's three layouts of the same documents, built once and taken as one value
// by whatever needs all of them (the cost model, the run harness, the CLI): a padded
// batch, packed rows and varlen, each in its own member, so they cannot come out of order.
#include "core/layout/implementation.hpp"
#include "core/layout/layouts.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

struct ScenarioLayouts {
  explicit ScenarioLayouts(const Scenario& s);
  Layout padded, packed, varlen;
  const Layout& of(LayoutKind kind) const;
  const Layout& of(Implementation i) const { return of(layout_of(i)); }  // naive: the padded batch
};

}  // namespace attnlab
