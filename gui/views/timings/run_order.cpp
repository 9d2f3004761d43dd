#include "gui/views/timings/run_order.hpp"

#include <algorithm>

namespace attnlab::gui {

void order_for_table(std::vector<MeasuredRun>& runs) {
  std::vector<Configuration> order;
  for (const MeasuredRun& m : runs)
    if (std::find(order.begin(), order.end(), configuration_of(*m.primary.row)) == order.end())
      order.push_back(configuration_of(*m.primary.row));
  const auto rank = [&](const ResultRow& r) {
    return std::find(order.begin(), order.end(), configuration_of(r)) - order.begin();
  };
  const auto ours = [](const ResultRow& r) { return r.source == our_source; };
  // Ours: the fastest run of any of our kernels of that implementation and shape, so a kernel's rows follow the
  // fastest's.
  const auto fastest_of_implementation = [&](const ResultRow& r) {
    double best = *r.median_us;
    if (ours(r))
      for (const MeasuredRun& m : runs)
        if (ours(*m.primary.row) && m.primary.row->implementation == r.implementation &&
            rank(*m.primary.row) == rank(r))
          best = std::min(best, *m.primary.row->median_us);
    return best;
  };
  std::stable_sort(runs.begin(), runs.end(), [&](const MeasuredRun& x, const MeasuredRun& y) {
    const ResultRow &a = *x.primary.row, &b = *y.primary.row;
    if (a.scenario != b.scenario) return a.scenario < b.scenario;
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (ours(a) != ours(b)) return ours(a);
    const double fa = fastest_of_implementation(a), fb = fastest_of_implementation(b);
    if (fa != fb) return fa < fb;
    if (a.implementation != b.implementation) return a.implementation < b.implementation;
    return *a.median_us < *b.median_us;
  });
}

}  // namespace attnlab::gui
