#include "analysis/pass_pairs.hpp"

#include <algorithm>

namespace attnlab {

namespace {

Configuration with_pass(Configuration c, Pass pass) {
  c.pass = pass;
  return c;
}

bool same_code(const PassPair& p, const ResultRow& r) {
  return p.source == r.source && p.kernel == r.kernel && p.implementation == r.implementation;
}

// The first row of `file` measuring this source, kernel and implementation in `c`, with a median.
const ResultRow* row_in(const ResultsFile& file, const Configuration& c, const PassPair& p) {
  for (const ResultRow& r : file.rows)
    if (r.median_us && same_code(p, r) && c.holds(r)) return &r;
  return nullptr;
}

}  // namespace

std::optional<double> PassPair::sum_us() const {
  if (!one_file) return std::nullopt;
  return *fwd->row->median_us + *bwd->row->median_us;
}

std::vector<PassPair> pass_pairs(const LoadedResults& results, const Configuration& shape) {
  const Configuration fwd = with_pass(shape, Pass::fwd), bwd = with_pass(shape, Pass::bwd);
  std::vector<PassPair> pairs;
  for (const MeasuredRun& m : primary_runs(results, [&](const ResultRow& r) { return fwd.holds(r) || bwd.holds(r); })) {
    const ResultRow& r = *m.primary.row;
    auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const PassPair& p) { return same_code(p, r); });
    if (pair == pairs.end())
      pair = pairs.insert(pairs.end(), PassPair{r.source, r.kernel, r.implementation, {}, {}, nullptr});
    (r.pass == Pass::fwd ? pair->fwd : pair->bwd) = m.primary;
  }
  for (PassPair& p : pairs)
    for (const ResultsFile& file : results.files) {
      const ResultRow *f = row_in(file, fwd, p), *b = row_in(file, bwd, p);
      if (!f || !b) continue;
      p.fwd = Run{f, &file.path};
      p.bwd = Run{b, &file.path};
      p.one_file = &file.path;
      break;
    }
  // Ours first, then the peers with a backward, then those measured forward only.
  const auto rank = [](const PassPair& p) { return p.source == our_source ? 0 : p.bwd ? 1 : 2; };
  std::stable_sort(pairs.begin(), pairs.end(), [&](const PassPair& a, const PassPair& b) { return rank(a) < rank(b); });
  return pairs;
}

}  // namespace attnlab
