#include "gui/views/timings/timings_data.hpp"

#include <map>
#include <tuple>

#include "gui/app/measured_scenario.hpp"
#include "gui/views/timings/run_order.hpp"

namespace attnlab::gui {

std::string shape_name(const Configuration& c) {
  return std::string(dtype_name(c.dtype)) + " d" + std::to_string(c.head_dim) + " h" + std::to_string(c.heads);
}

namespace {

// Each row's ratios, our varlen runs found through one map rather than a search per row.
void add_row_ratios(TimingsData& d) {
  using Key = std::tuple<std::string, int, int, int, bool, int, std::string>;  // configuration, kernel
  const auto key_of = [](const ResultRow& r, const std::string& kernel) {
    return Key{r.scenario, int(r.dtype), r.heads, r.head_dim, r.causal, int(r.pass), kernel};
  };
  std::map<Key, double> our_varlen;
  for (const MeasuredRun& m : d.runs) {
    const ResultRow& r = *m.primary.row;
    if (r.source == our_source && r.implementation == "varlen")
      our_varlen.try_emplace(key_of(r, r.kernel), *r.median_us);
  }
  for (const MeasuredRun& m : d.runs) {
    const ResultRow& r = *m.primary.row;
    TimingsRow row;
    for (const std::string& k : d.versus) {
      // A peer against either kernel, ours only against its own kernel's (naive's cuBLAS against each).
      const auto v = our_varlen.find(key_of(r, k));
      row.vs_our_varlen.push_back((ours_of_a_flash_kernel(r) && r.kernel != k) || v == our_varlen.end()
                                      ? std::nullopt
                                      : std::optional(*r.median_us / v->second));
    }
    const SourceFamily* family = family_of(r.source);
    const auto impl = implementation_of(r.implementation);
    if (family && impl) {
      const SourceRatios* own = ratios_of(
          d.ratios, family->name, ours_of_a_flash_kernel(r) ? std::optional<std::string_view>(r.kernel) : std::nullopt);
      if (own && !(own->padded_stands_for_varlen && *impl == Implementation::padded))
        row.vs_own_varlen = own->vs_varlen(*impl);
    }
    d.rows.push_back(std::move(row));
  }
}

}  // namespace

TimingsData make_timings_data(const LoadedResults& results, const TimingsKey& key) {
  TimingsData d;
  d.key = key;
  const Pass pass = key.own.pass;
  std::vector<MeasuredRun> of_scenario = primary_runs(results, [&](const ResultRow& r) {
    return r.pass == pass && key.measured && r.scenario == key.measured->scenario;
  });
  d.configurations = measured_configurations(of_scenario, key.own);
  if (!key.all_scenarios && !d.configurations.empty()) {
    d.shape = d.configurations.front();
    for (const Configuration& c : d.configurations)
      if (shape_name(c) == key.shape) d.shape = c;
  }
  if (!d.shape)
    d.runs = primary_runs(results, [&](const ResultRow& r) { return r.pass == pass; });
  else
    for (MeasuredRun& m : of_scenario)
      if (configuration_of(*m.primary.row) == *d.shape) d.runs.push_back(std::move(m));
  order_for_table(d.runs);
  d.kernels = Kernels{our_flash_kernels(results)};
  // One "time / varlen" column per kernel named, else one of the only kernel (any, in an old file).
  d.versus =
      d.kernels.named() ? d.kernels.ours : std::vector<std::string>{d.kernels.ours.empty() ? "" : d.kernels.ours[0]};
  if (d.shape) {
    d.ratios = source_ratios(results, *d.shape, key.padded_equals_varlen);
    if (pass == Pass::bwd) d.pairs = pass_pairs(results, *d.shape);
  }
  add_row_ratios(d);
  return d;
}

const TimingsData& timings_data(AppState& state, const ScenarioModel& model) {
  TimingsKey key;
  key.results_version = state.results.version();
  key.measured = measured_configuration(state, model, state.pass);
  key.own = key.measured.value_or(own_configuration(model.scenario, state.pass));
  key.all_scenarios = state.results.all_scenarios;
  key.shape = state.results.shape;
  key.padded_equals_varlen =
      model.ok() && model.costs[Implementation::padded].scores == model.costs[Implementation::varlen].scores;
  if (!state.timings || !(state.timings->key == key))
    state.timings = std::make_shared<const TimingsData>(make_timings_data(state.results.loaded(), key));
  return *state.timings;
}

}  // namespace attnlab::gui
