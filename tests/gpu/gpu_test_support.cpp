#include "tests/gpu/gpu_test_support.hpp"

#include <algorithm>

namespace attnlab::test {

bool has_gpu() {
  try {
    query_gpu();
    return true;
  } catch (const NoGpuError&) {
    return false;
  }
}

FlashKernel test_kernel() { return choose_flash_kernel("", query_gpu().compute_capability); }

bool runs_here(FlashKernel kernel) {
  try {
    return choose_flash_kernel(flash_kernel_info(kernel).name, query_gpu().compute_capability) == kernel;
  } catch (const InputError&) {  // too new for this GPU (or the one ATTNLAB_LAUNCH_AS names), or not built
    return false;
  }
}

std::vector<FlashKernel> test_kernels() {
  std::vector<FlashKernel> kernels;
  for (const FlashKernelInfo& k : flash_kernels)
    if (!is_rung(k) && runs_here(k.kernel)) kernels.push_back(k.kernel);  // the rungs: wgmma_ladder_test
  return kernels;
}

std::vector<KernelConfig> all_kernel_configs() {
  std::vector<KernelConfig> configs;
  for (DType dtype : {DType::bf16, DType::fp16})
    for (int head_dim : {64, 128})
      for (bool causal : {true, false}) configs.push_back({dtype, head_dim, causal});
  return configs;
}

std::vector<KernelConfig> forward_kernel_configs() {
  std::vector<KernelConfig> configs;
  for (const FlashKernelInfo& k : flash_kernels) {
    if (is_rung(k)) continue;  // the rungs: wgmma_ladder_test
    for (KernelConfig c : all_kernel_configs()) {
      c.kernel = k.kernel;
      configs.push_back(c);
    }
  }
  return configs;
}

void PrintTo(const KernelConfig& c, std::ostream* os) {
  *os << dtype_name(c.dtype) << ", head dim " << c.head_dim << (c.causal ? ", causal" : ", not causal") << ", "
      << flash_kernel_info(c.kernel).name;
}

std::string config_name(const ::testing::TestParamInfo<KernelConfig>& info) {
  const KernelConfig& c = info.param;
  std::string name =
      std::string(dtype_name(c.dtype)) + "_d" + std::to_string(c.head_dim) + (c.causal ? "_causal" : "_full");
  if (c.kernel != FlashKernel::mma_sm80) {
    name += std::string("_") + flash_kernel_info(c.kernel).name;
    std::replace(name.begin(), name.end(), '-', '_');  // gtest names take no dashes
  }
  return name;
}

std::vector<int> awkward_lengths() {
  std::vector<int> lengths{1, 2, 63, 64, 65, 511, 513, 4097};
  lengths.insert(lengths.begin() + 3, 16, 1);
  return lengths;
}

AttentionProblem grouped_query_problem(DType dtype, int head_dim) {
  AttentionProblem p;
  p.dtype = dtype;
  p.heads = 4;
  p.kv_heads = 2;
  p.head_dim = head_dim;
  return p;
}

double rel_l2_bound(DType dtype) { return dtype == DType::bf16 ? 1e-2 : 2e-3; }

std::int64_t canonical_tokens(const Layout& layout) {
  std::int64_t tokens = 0;
  for (std::int64_t s : layout.token_source) tokens = std::max(tokens, s + 1);
  return tokens;
}

RunCheck run_and_check(Implementation implementation, const Layout& layout, const AttentionProblem& problem,
                       std::uint64_t seed, FlashKernel kernel) {
  RunInputs inputs(canonical_tokens(layout), problem, seed, RunInputs::Coverage::everything);
  AttentionRun run(layout, implementation, problem, kernel);
  return run.check(inputs);
}

namespace {

// The tiled implementation over a layout of each kind.
Implementation flash_implementation(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::padded: return Implementation::padded;
    case LayoutKind::packed: return Implementation::packed;
    case LayoutKind::varlen: return Implementation::varlen;
  }
  return Implementation::varlen;
}

}  // namespace

std::vector<Layout> counting_layouts(bool causal, Window window) {
  const std::vector<int> lengths{1, 2, 63, 64, 65, 511, 513, 4097, 1, 1, 1, 130};
  return {make_varlen_layout(lengths, causal, window), make_padded_layout(lengths, 4200, causal, window),
          make_packed_layout(lengths, 777, PackingPolicy::concatenate, causal, window),
          make_packed_layout(lengths, 777, PackingPolicy::best_fit, causal, window)};
}

void zero(DeviceBuffer& buffer) {
  const std::vector<unsigned char> zeros(buffer.bytes(), 0);
  buffer.upload(zeros.data(), zeros.size());
}

KernelCounts count_on_gpu(const Layout& layout, const AttentionProblem& problem, FlashKernel kernel) {
  AttentionRun run(layout, flash_implementation(layout.kind), problem, kernel);
  AttentionTensors& t = run.add_input_set();
  for (DeviceBuffer* b : {&t.q, &t.k, &t.v}) zero(*b);
  const std::optional<CountComparison> counts = run.count();
  EXPECT_TRUE(counts && counts->equal()) << layout_kind_name(layout.kind) << " " << flash_kernel_info(kernel).name;
  return counts ? counts->counted : KernelCounts{};
}

}  // namespace attnlab::test
