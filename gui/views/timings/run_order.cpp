#include "gui/views/timings/run_order.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace attnlab::gui {

namespace {

using ConfigurationKey = std::tuple<std::string, int, int, int, bool, int>;
ConfigurationKey key_of(const ResultRow& r) {
  return {r.scenario, int(r.dtype), r.heads, r.head_dim, r.causal, int(r.pass)};
}

}  // namespace

void order_for_table(std::vector<MeasuredRun>& runs) {
  // Each configuration's place in file order, and for ours the fastest run of each implementation in it, so a
  // kernel's rows follow the fastest's; looked up in maps, so a file of many rows sorts in n log n.
  std::map<ConfigurationKey, std::size_t> rank;
  std::map<std::pair<std::size_t, std::string>, double> fastest_ours;
  for (const MeasuredRun& m : runs) rank.try_emplace(key_of(*m.primary.row), rank.size());
  const auto ours = [](const ResultRow& r) { return r.source == our_source; };
  for (const MeasuredRun& m : runs) {
    const ResultRow& r = *m.primary.row;
    if (!ours(r)) continue;
    auto [at, added] = fastest_ours.try_emplace({rank[key_of(r)], r.implementation}, *r.median_us);
    if (!added) at->second = std::min(at->second, *r.median_us);
  }
  struct Sorted {
    std::size_t rank;
    double fastest;
    MeasuredRun run;
  };
  std::vector<Sorted> sorted;
  sorted.reserve(runs.size());
  for (MeasuredRun& m : runs) {
    const ResultRow& r = *m.primary.row;
    const std::size_t place = rank[key_of(r)];
    sorted.push_back({place, ours(r) ? fastest_ours[{place, r.implementation}] : *r.median_us, std::move(m)});
  }
  std::stable_sort(sorted.begin(), sorted.end(), [&](const Sorted& x, const Sorted& y) {
    const ResultRow &a = *x.run.primary.row, &b = *y.run.primary.row;
    if (a.scenario != b.scenario) return a.scenario < b.scenario;
    if (x.rank != y.rank) return x.rank < y.rank;
    if (ours(a) != ours(b)) return ours(a);
    if (x.fastest != y.fastest) return x.fastest < y.fastest;
    if (a.implementation != b.implementation) return a.implementation < b.implementation;
    return *a.median_us < *b.median_us;
  });
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i] = std::move(sorted[i].run);
}

}  // namespace attnlab::gui
