#include "bench/bench_case.hpp"

#include <algorithm>

#include "core/scenario/numeric.hpp"
#include "reference/attention_inputs.hpp"

namespace attnlab::bench {

namespace {

// Input values come from one seeded pool of random numbers (as many as a 4096-token
// Q); each tensor of each set reads it from its own offset. The values only need to
// be real data (never zeros, which run faster than real data): the timing does not
// depend on them, and correctness is `attnlab run`'s job.
constexpr std::int64_t pool_tokens = 4096;

std::vector<std::uint16_t> value_pool(const Scenario& s, std::uint64_t seed) {
  const AttentionInputs in = make_random_inputs(pool_tokens, s.heads, s.heads, s.head_dim, s.dtype, seed);
  std::vector<std::uint16_t> bits(in.q.size());
  std::transform(in.q.begin(), in.q.end(), bits.begin(), [&](float x) { return float_to_dtype_bits(x, s.dtype); });
  return bits;
}

// Fills a buffer of 16-bit values with the pool, cyclically, starting at `offset`.
void fill_from_pool(DeviceBuffer& buffer, const std::vector<std::uint16_t>& pool, std::size_t offset) {
  std::vector<std::uint16_t> host(buffer.bytes() / sizeof(std::uint16_t));
  std::size_t done = 0, at = offset % pool.size();
  while (done < host.size()) {
    const std::size_t take = std::min(host.size() - done, pool.size() - at);
    std::copy_n(pool.begin() + static_cast<std::ptrdiff_t>(at), take, host.begin() + static_cast<std::ptrdiff_t>(done));
    done += take;
    at = 0;
  }
  buffer.upload(host.data(), host.size() * sizeof(std::uint16_t));
}

int input_sets_for(std::int64_t positions, const AttentionProblem& p) {
  const std::int64_t set_bytes = positions * (2 * p.heads + 2 * p.kv_heads) * p.head_dim * dtype_bytes(p.dtype);
  const std::int64_t sets = (rotation_bytes + set_bytes - 1) / std::max<std::int64_t>(set_bytes, 1);
  return static_cast<int>(std::clamp<std::int64_t>(sets, 1, max_input_sets));
}

}  // namespace

std::string CaseKey::name() const {
  const Scenario& s = plan->scenario;
  return std::string(implementation_name(implementation)) + "/" + s.name + "/" + dtype_name(s.dtype) + "/d" +
         std::to_string(s.head_dim) + (pass == Pass::bwd ? "/bwd" : "");
}

std::unique_ptr<AttentionRun> prepare_case(const CaseKey& key, std::uint64_t seed) {
  auto run = std::make_unique<AttentionRun>(*key.plan, key.implementation, key.pass);
  const std::vector<std::uint16_t> pool = value_pool(key.plan->scenario, seed);
  const int sets = input_sets_for(run->layout().buffer_tokens(), key.plan->problem);
  for (int i = 0; i < sets; ++i) {
    AttentionTensors& t = run->add_input_set();
    std::size_t offset = static_cast<std::size_t>(3 * i) * 1000003;  // a prime stride: sets differ everywhere
    for (DeviceBuffer* b : {&t.q, &t.k, &t.v}) fill_from_pool(*b, pool, offset += 1000003);
    if (key.pass == Pass::bwd) fill_from_pool(run->gradients(i).d_o, pool, offset += 1000003);
  }
  if (key.pass == Pass::bwd) run->run_forwards();  // the saved outputs each backward reads
  return run;
}

}  // namespace attnlab::bench
