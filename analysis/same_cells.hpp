#pragma once
// When a measured run stands for a scenario: the run computed the same cells. Results
// rows name the shipped scenario they ran, and a scenario edited in the GUI may keep
// that name while its documents change, so every view and command matches runs through
// the cells their scenario computes, never through a name alone.
#include <optional>
#include <span>
#include <string>

#include "core/implementation.hpp"
#include "core/scenario.hpp"

namespace attnlab {

// A flash kernel running `a` under `ia` and one running `b` under `ib` compute the same
// cells: the same rows (extent and tokens of each, in any order), the same window as it acts
// on them (one that covers every row counts as none), causal mask, head dim, dtype, tokens
// and heads per K/V head. Packed rows with bleed compute what varlen computes for documents
// of the rows' lengths, so a run of one may stand for the other.
bool computes_same_cells(const Scenario& a, Implementation ia, const Scenario& b, Implementation ib);

// The first of `shipped` whose runs stand for `s` in every implementation: the same cells
// under each, with the same heads and K/V heads (naive's rows are padded's). Its name is
// the one results rows of `s` carry.
std::optional<std::string> measured_as(const Scenario& s, std::span<const Scenario> shipped);

}  // namespace attnlab
