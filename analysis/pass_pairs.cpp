#include "analysis/pass_pairs.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace attnlab {

namespace {

Configuration with_pass(Configuration c, Pass pass) {
  c.pass = pass;
  return c;
}

bool same_code(const PassPair& p, const ResultRow& r) {
  return p.source == r.source && p.kernel == r.kernel && p.implementation == r.implementation;
}

// Every row of this source, kernel and implementation in `c`, with a median, in results order.
std::vector<Run> rows_of(const LoadedResults& results, const Configuration& c, const PassPair& p) {
  std::vector<Run> rows;
  for (const ResultsFile& file : results.files)
    for (const ResultRow& r : file.rows)
      if (r.median_us && same_code(p, r) && c.holds(r)) rows.push_back(Run{&r, &file.path});
  return rows;
}

// One run of one file: its rows name one commit (a file that gathered two commits' rows holds two builds).
bool one_run(const Run& f, const Run& b) { return f.file == b.file && f.row->commit == b.row->commit; }

// The first forward and backward of one build: both of one run first, then two files' rows
// of the same commit and machine.
std::optional<std::pair<Run, Run>> first_of_one_build(const std::vector<Run>& fwd, const std::vector<Run>& bwd) {
  for (const bool one_file : {true, false})
    for (const Run& f : fwd)
      for (const Run& b : bwd)
        if (one_file ? one_run(f, b) : same_build(*f.row, *b.row)) return std::pair{f, b};
  return std::nullopt;
}

}  // namespace

bool same_build(const ResultRow& a, const ResultRow& b) {
  return !a.commit.empty() && a.commit == b.commit && a.gpu == b.gpu && a.driver == b.driver &&
         a.cuda_version == b.cuda_version;
}

std::optional<double> PassPair::sum_us() const {
  if (!one_build) return std::nullopt;
  return *fwd->row->median_us + *bwd->row->median_us;
}

std::vector<PassPair> pass_pairs(const LoadedResults& results, const Configuration& shape) {
  const Configuration fwd = with_pass(shape, Pass::fwd), bwd = with_pass(shape, Pass::bwd);
  std::vector<PassPair> pairs;
  for (const MeasuredRun& m : primary_runs(results, [&](const ResultRow& r) { return fwd.holds(r) || bwd.holds(r); })) {
    const ResultRow& r = *m.primary.row;
    auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const PassPair& p) { return same_code(p, r); });
    if (pair == pairs.end())
      pair = pairs.insert(pairs.end(), PassPair{r.source, r.kernel, r.implementation, {}, {}, false});
    (r.pass == Pass::fwd ? pair->fwd : pair->bwd) = m.primary;
  }
  for (PassPair& p : pairs) {
    if (!p.fwd || !p.bwd) continue;
    if (one_run(*p.fwd, *p.bwd) || same_build(*p.fwd->row, *p.bwd->row)) {
      p.one_build = true;
      continue;
    }
    if (const auto both = first_of_one_build(rows_of(results, fwd, p), rows_of(results, bwd, p))) {
      std::tie(p.fwd, p.bwd) = *both;
      p.one_build = true;
    }
  }
  // Ours first, then the peers with a backward, then those measured forward only.
  const auto rank = [](const PassPair& p) { return p.source == our_source ? 0 : p.bwd ? 1 : 2; };
  std::stable_sort(pairs.begin(), pairs.end(), [&](const PassPair& a, const PassPair& b) { return rank(a) < rank(b); });
  return pairs;
}

}  // namespace attnlab
