#include "analysis/all_reduce_estimate.hpp"

#include <algorithm>

#include "core/cost/step_bytes.hpp"

namespace attnlab {

std::optional<double> AllReduceEstimate::article_us() const {
  if (!basis) return std::nullopt;
  return article.time_us(basis->bus_bandwidth());
}

std::optional<AllReduceEstimate> all_reduce_estimate(const ModelShape& model,
                                                     const std::vector<MeasuredStepPair>& measured) {
  if (std::none_of(measured.begin(), measured.end(), [](const MeasuredStepPair& p) { return p.gpus > 1; }))
    return std::nullopt;
  AllReduceEstimate e;
  e.gradient_bytes = parameter_bytes(model);
  e.article = {article_gpus, e.gradient_bytes};
  for (const MeasuredStepPair& p : measured) {
    if (p.gpus == 1) continue;
    for (const Implementation layout : {Implementation::packed, Implementation::varlen}) {
      const std::optional<MeasuredStepRun>& run = p.run(layout);
      const std::optional<double> us = run ? run->row.part_us(StepPart::communication) : std::nullopt;
      if (us && *us > 0) e.measured.push_back({&p, layout, {p.gpus, e.gradient_bytes}, *us});
    }
  }
  const auto better_basis = [](const MeasuredAllReduce& a, const MeasuredAllReduce& b) {
    const bool a_alone = a.pair->gradient_sync == GradientSync::after_backward,
               b_alone = b.pair->gradient_sync == GradientSync::after_backward;
    return a.ring.gpus != b.ring.gpus ? a.ring.gpus > b.ring.gpus : a_alone && !b_alone;
  };
  for (const MeasuredAllReduce& m : e.measured)
    if (m.ring.gpus < article_gpus && (!e.basis || better_basis(m, *e.basis))) e.basis = m;
  return e;
}

}  // namespace attnlab
