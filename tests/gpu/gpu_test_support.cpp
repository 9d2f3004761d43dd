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

std::vector<KernelConfig> all_kernel_configs() {
  std::vector<KernelConfig> configs;
  for (DType dtype : {DType::bf16, DType::fp16})
    for (int head_dim : {64, 128})
      for (bool causal : {true, false}) configs.push_back({dtype, head_dim, causal});
  return configs;
}

void PrintTo(const KernelConfig& c, std::ostream* os) {
  *os << dtype_name(c.dtype) << ", head dim " << c.head_dim << (c.causal ? ", causal" : ", not causal");
}

std::string config_name(const ::testing::TestParamInfo<KernelConfig>& info) {
  const KernelConfig& c = info.param;
  return std::string(dtype_name(c.dtype)) + "_d" + std::to_string(c.head_dim) + (c.causal ? "_causal" : "_full");
}

std::vector<int> awkward_lengths() {
  std::vector<int> lengths{1, 2, 63, 64, 65, 511, 513, 4097};
  lengths.insert(lengths.begin() + 3, 16, 1);
  return lengths;
}

double rel_l2_bound(DType dtype) { return dtype == DType::bf16 ? 1e-2 : 2e-3; }

std::int64_t canonical_tokens(const Layout& layout) {
  std::int64_t tokens = 0;
  for (std::int64_t s : layout.token_source) tokens = std::max(tokens, s + 1);
  return tokens;
}

CheckedRun run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                         std::uint64_t seed) {
  const AttentionInputs canonical =
      make_random_inputs(canonical_tokens(layout), problem.heads, problem.kv_heads, problem.head_dim, problem.dtype, seed);
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
