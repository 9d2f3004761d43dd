#pragma once
// Everything the views show that follows from the scenario and the tile shape:
// the three layouts (one ScenarioLayouts) and the cost model of the four implementations, forward and
// backward (core/cost/backward_cost.hpp, dQ summed by fp32 atomics as our kernel does). Built in one
// go from the scenario, never edited, so it cannot drift from what the user set.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/backward_cost.hpp"
#include "core/cost/cost_model.hpp"
#include "core/scenario/scenario.hpp"
#include "core/scenario/scenario_layouts.hpp"

namespace attnlab::gui {

struct ScenarioModel {
  Scenario scenario;                       // the scenario it was built from (resolved)
  TileShape tile;                          // the flash kernels' tile
  std::string error;                       // why the scenario could not be laid out; empty when it could
  std::optional<ScenarioLayouts> layouts;  // empty where the scenario could not be laid out
  std::vector<std::int64_t> doc_offsets;   // canonical start of each document, total at the end
  CostModel costs;                         // per implementation, all heads
  BackwardModel backward;                  // the backward pass of each, from `costs`
  std::uint64_t version = 0;               // AppState::scenario_version it was built for

  bool ok() const { return error.empty(); }
  const Layout& layout_of(Implementation i) const { return layouts->of(i); }
  // The tile an implementation computes in (the cost model's: naive materializes a whole padded row).
  TileShape tile_of(Implementation i) const { return costs[i].tile; }
  const BackwardCost& backward_of(Implementation i) const { return backward[static_cast<int>(i)]; }
  // The cost model at another tile (a measured kernel's, set beside its runs), computed on first
  // use and kept with the model; read from the drawing thread only.
  const CostModel& costs_at(TileShape other) const;

  using TileCosts = std::map<std::pair<int, int>, CostModel>;  // by (rows, cols)
  std::shared_ptr<TileCosts> other_tiles = std::make_shared<TileCosts>();
};

ScenarioModel build_model(Scenario scenario, TileShape tile, std::uint64_t version = 0);

// The GUI rebuilds every layout on each edit, so it keeps each under this many
// buffer positions (a slider dragged to 1024 documents of 65536 tokens would
// otherwise ask for gigabytes). Throws InputError naming the scenario and the layout.
inline constexpr std::int64_t max_gui_layout_positions = std::int64_t{1} << 24;
void check_fits_gui(const Scenario& scenario);

}  // namespace attnlab::gui
