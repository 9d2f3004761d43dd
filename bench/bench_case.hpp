#pragma once
// One benchmark case: an implementation of a scenario at one dtype and head dim,
// made ready on the GPU (device layout, several input sets, naive's workspace) so
// that the timed region is one forward pass and nothing else.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cost_model.hpp"
#include "core/implementation.hpp"
#include "core/scenario.hpp"
#include "kernels/attention.hpp"

namespace attnlab::bench {

// The input sets of a case span this many bytes at least (Q, K, V and O each), so a
// forward pass never finds its inputs left in the 50 MB L2 of an H100 by the pass before.
inline constexpr std::int64_t rotation_bytes = 4 * 50 * 1024 * 1024;
inline constexpr int max_input_sets = 8;

struct CaseKey {
  Scenario scenario;  // dtype and head_dim already those of the case
  Implementation implementation = Implementation::varlen;

  std::string name() const;  // "varlen/uniform-64x512/bf16/d128", what --benchmark_filter matches
};

class PreparedCase {
 public:
  // Throws GpuMemoryError when the inputs or naive's workspace do not fit, InputError
  // on a shape the kernels do not support.
  explicit PreparedCase(const CaseKey& key);
  PreparedCase(const PreparedCase&) = delete;
  PreparedCase& operator=(const PreparedCase&) = delete;
  ~PreparedCase();

  const CaseKey& key() const { return key_; }
  const ImplementationCost& cost() const { return cost_; }
  int input_sets() const { return static_cast<int>(sets_.size()); }

  // One forward pass on input set `set` (modulo the number of sets); asynchronous.
  void launch(int set);
  // For the tiled kernel: what one counting run (run_flash with KernelCounts) computed on input set 0; it synchronizes.
  std::optional<KernelCounts> count_kernel();

 private:
  CaseKey key_;
  Layout layout_;
  ImplementationCost cost_;
  AttentionProblem problem_;
  std::unique_ptr<DeviceLayout> device_layout_;
  std::vector<AttentionTensors> sets_;
  std::unique_ptr<NaiveAttention> naive_;
};

}  // namespace attnlab::bench
