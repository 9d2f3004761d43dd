#include "tests/gpu/gpu_test_support.hpp"

#include <algorithm>

#include "reference/attention_inputs.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab::test {

bool has_gpu() {
  try {
    query_gpu();
    return true;
  } catch (const NoGpuError&) {
    return false;
  }
}

std::vector<int> awkward_lengths() {
  std::vector<int> lengths{1, 2, 63, 64, 65, 511, 513, 4097};
  lengths.insert(lengths.begin() + 3, 16, 1);
  return lengths;
}

double rel_l2_bound(DType dtype) { return dtype == DType::bf16 ? 1e-2 : 2e-3; }

CheckedRun run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                         std::uint64_t seed) {
  std::int64_t canonical_tokens = 0;
  for (std::int64_t s : layout.token_source) canonical_tokens = std::max(canonical_tokens, s + 1);
  const AttentionInputs canonical =
      make_random_inputs(canonical_tokens, problem.heads, problem.kv_heads, problem.head_dim, problem.dtype, seed);
  const AttentionInputs gathered = gather_inputs(layout, canonical);

  DeviceLayout device_layout(layout);
  AttentionTensors tensors(layout.buffer_tokens(), problem);
  upload_qkv(tensors, problem.dtype, gathered.q, gathered.k, gathered.v);
  tensors.o.poison();
  tensors.lse.poison();
  if (implementation == Implementation::naive) {
    NaiveAttention naive(device_layout, problem);
    naive.run(tensors);
  } else {
    run_flash(device_layout, problem, tensors);
  }
  const std::vector<float> o = download_o(tensors, problem.dtype);
  const std::vector<float> lse = download_lse(tensors);

  CheckedRun result;
  const WrittenOutputs written = check_written(layout, problem, o, lse);
  result.unwritten = written.unwritten;
  result.padding_not_zero = written.padding_not_zero;
  const ReferenceOutput reference = reference_materialized(layout, canonical, problem.softmax_scale());
  result.error = compare_to_reference(layout, reference, o, lse);
  return result;
}

}  // namespace attnlab::test
