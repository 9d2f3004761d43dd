#include "gui/views/timings/model_ratios.hpp"

#include <algorithm>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"

namespace attnlab::gui {

std::vector<ModelRatioRow> model_ratio_rows(const ScenarioModel& model, const std::vector<SourceRatios>& ratios) {
  const CostModel& c = model.costs;
  std::vector<ModelRatioRow> rows{
      {"model: cells attended", format_count(double(c[Implementation::varlen].scores_attended())) + " cells",
       c[Implementation::padded].attended_vs_varlen, c[Implementation::packed].attended_vs_varlen}};
  std::vector<TileShape> tiles;
  for (const SourceRatios& r : ratios)
    if (const auto t = r.tile();
        t && r.family->name == ours_family && std::find(tiles.begin(), tiles.end(), *t) == tiles.end())
      tiles.push_back(*t);
  if (tiles.empty()) tiles.push_back(model.tile);
  for (TileShape tile : tiles) {
    const CostModel& at = model.costs_at(tile);
    rows.push_back({"model: " + tile_name(tile) + " tiles",
                    format_count(double(at[Implementation::varlen].scores_computed())) + " scores",
                    at[Implementation::padded].computed_vs_varlen, at[Implementation::packed].computed_vs_varlen});
  }
  return rows;
}

}  // namespace attnlab::gui
