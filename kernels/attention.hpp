#pragma once
// Host-side API of the attention kernels: plain C++, no CUDA types, so any .cpp
// (the CLI, the benchmark) can include it. In a build without CUDA every entry
// point that needs a GPU throws NoGpuError("this build has no CUDA support").
//
// Tensors live in a layout's buffer order: Q, O are [position][head][head_dim],
// K, V are [position][kv_head][head_dim], all bf16 or fp16; LSE is
// [position][head] fp32 (natural log). Positions past a row's valid tokens are
// padding: the flash kernels never read their contents (naive's GEMMs do, so
// keep them finite, e.g. zero) and every implementation writes O = 0, LSE = -inf there.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/io/input_error.hpp"
#include "core/layout/implementation.hpp"
#include "core/layout/layouts.hpp"
#include "core/scenario/scenario.hpp"  // DType
#include "kernels/kernel_id.hpp"

// The CUDA runtime's own declaration of a stream, so that plain C++ can pass one; nullptr
// is the default stream.
struct CUstream_st;
using cudaStream_t = CUstream_st*;

namespace attnlab {

// ---- the GPU ---------------------------------------------------------------

struct GpuInfo {
  std::string name;            // as the driver reports it, e.g. "NVIDIA H100 80GB HBM3"
  int compute_capability = 0;  // e.g. 90
  int sm_count = 0;
  int driver_version = 0;   // CUDA driver API version, e.g. 13000
  int runtime_version = 0;  // CUDA runtime the binary was built against, e.g. 13000
  std::string driver;       // the display driver's version as nvidia-smi prints it (NVML); empty if unknown
  std::size_t free_bytes = 0, total_bytes = 0;
};

// Throws NoGpuError when there is no usable CUDA GPU (or no CUDA in this build).
GpuInfo query_gpu();

// "13.0" from 13000.
std::string cuda_version_string(int version);

// Thrown before an allocation that would not fit in free device memory; the message
// names the bytes needed and free. A caller refuses that one case and goes on.
class GpuMemoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The check before each allocation of ours: throws GpuMemoryError "<what> <needed> bytes
// of device memory, <free> free" unless `needed` bytes are free.
void require_device_memory(std::size_t needed, const std::string& what);

// ---- device memory ---------------------------------------------------------

// Owns one cudaMalloc'd allocation. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);  // bytes <= this->bytes()
  void download(void* host, std::size_t bytes) const;
  // Fills every byte with 0xFF: NaN in bf16, fp16 and fp32, so unwritten outputs show.
  void poison();

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// DeviceBuffer::poison for device memory allocated elsewhere.
void poison_device_bytes(void* data, std::size_t bytes);

// A host Layout's index arrays on the device, plus a flash kernel's work lists at its
// tile: the forward's (one item per (row, query tile), longest first) and, for a
// square tile, the backward's (kernels/common/work_list.hpp). The Layout must outlive it.
class DeviceLayout {
 public:
  DeviceLayout(const Layout& layout, TileShape work_tile);
  const Layout& host() const { return *host_; }
  TileShape work_tile() const { return work_tile_; }
  LayoutView view() const;  // device pointers: for kernels only
  int work_items() const { return work_items_; }
  const void* work_list() const { return work_.data(); }
  const void* backward_work_list() const { return backward_work_.data(); }  // as many items
  const std::int64_t* token_source() const { return static_cast<const std::int64_t*>(token_source_.data()); }

 private:
  const Layout* host_;
  TileShape work_tile_;
  DeviceBuffer row_start_, row_valid_, row_piece_, piece_start_, piece_doc_, token_doc_, token_source_, row_queries_;
  DeviceBuffer work_, backward_work_;
  int work_items_ = 0;
};

// ---- the problem -----------------------------------------------------------

struct AttentionProblem {
  DType dtype = DType::bf16;
  int heads = 16;
  int kv_heads = 16;           // divides heads (grouped-query attention when fewer)
  int head_dim = 128;          // 64 or 128
  std::optional<float> scale;  // the softmax scale; unset: 1/sqrt(head_dim)
  float softmax_scale() const;
  void validate() const;  // throws InputError on an unsupported shape or scale
};

// The softmax scale a caller gives (a framework's double) as the kernels take it: InputError
// naming `scale` unless it is positive and finite in fp32, and so is scale·log2 e (what the
// kernels multiply scores by).
float checked_softmax_scale(double scale);

// Q, K, V, O, LSE for `positions` buffer positions of one layout, and the forward's work
// counter (AttentionViews). Throws GpuMemoryError (all five's bytes needed vs free) before
// allocating any of them.
struct AttentionTensors {
  AttentionTensors(std::int64_t positions, const AttentionProblem& problem);
  std::int64_t positions;
  DeviceBuffer q, k, v, o, lse, work_counter;
};

// Host <-> device of one 16-bit tensor: floats that are values of the dtype,
// converted bit-exactly; upload_values checks the count against the buffer.
void upload_values(DeviceBuffer& buffer, const std::vector<float>& values, DType dtype);
std::vector<float> download_values(const DeviceBuffer& buffer, DType dtype);

// Host <-> device in the tensors' dtype. The floats must already be values of
// the dtype (AttentionInputs' are): they are converted bit-exactly.
void upload_qkv(AttentionTensors& tensors, DType dtype, const std::vector<float>& q, const std::vector<float>& k,
                const std::vector<float>& v);
std::vector<float> download_o(const AttentionTensors& tensors, DType dtype);  // [position][head][head_dim]
std::vector<float> download_lse(const AttentionTensors& tensors);             // [position][head]

// Fills `out`'s Q, K, V (layout `to`'s buffer order) from tensors in canonical
// token order (a varlen layout's buffer) on the device; padding gets zeros. So
// inputs are uploaded once per run, however large the padded buffer. Asynchronous, on `stream`.
void gather_qkv(const AttentionTensors& canonical, const DeviceLayout& to, AttentionTensors& out,
                cudaStream_t stream = nullptr);

// ---- the implementations -----------------------------------------------------

// What the kernel actually computed, summed over every head's CTAs (so
// heads x count_layout(layout, kernel_tile(kernel)) when the kernel matches the model),
// and the scores its own mask left finite (heads x the model's useful + bleed).
struct KernelCounts {
  std::int64_t visited_tiles = 0;
  CellCounts cells;
  std::int64_t finite_scores = 0;
};

// One layout's Q, K, V, O and LSE by device address, wherever they live: an
// AttentionTensors converts to it, and a framework's own tensors (pytorch/) fill it
// in, so the kernels run on them without a copy. Same buffer order as above.
struct AttentionViews {
  std::int64_t positions = 0;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  // Where set, O is not written: each query's O and LSE fold into these fp32 sums (per
  // position, head and head dim) and `lse`, the sums' LSE, by the LSE rule; a sum at LSE
  // -inf holds nothing yet (kernels/common/output_sums.cuh). A query may be in one row only;
  // a counting run (run_flash with counts) takes none.
  float* o_sums = nullptr;
  // Workspace: one int a forward's scheduler hands out work with (zeroed on the run's
  // stream, never null). Runs that overlap, on several streams, need one each.
  int* work_counter = nullptr;
  // SMs a forward's persistent grid leaves to kernels running beside it on other streams (a
  // transfer's), at least one SM's CTAs kept; 0: one CTA per slot of every SM.
  int sm_margin = 0;
  AttentionViews() = default;
  AttentionViews(const AttentionTensors& t)  // implicit: a run on owned tensors passes them as they are
      : positions(t.positions),
        q(t.q.data()),
        k(t.k.data()),
        v(t.v.data()),
        o(t.o.data()),
        lse(static_cast<float*>(t.lse.data())),
        work_counter(static_cast<int*>(t.work_counter.data())) {}
};

// padded, packed and varlen: a tiled kernel over the layout, whose work list must be
// at the kernel's tile, launched on `stream` (asynchronously). On a layout with a query side
// (core/cost/cp_piece_layouts.hpp), `tensors.positions` counts K and V's positions, Q, O and
// LSE have the layout's query_tokens(), and only the rows' queries are written. With `counts`, each CTA
// also adds count_tile of every tile it visits and the scores its mask leaves finite
// (the kernel's counting instantiation), and the call waits for the stream to fill `counts`.
void run_flash(FlashKernel kernel, const DeviceLayout& layout, const AttentionProblem& problem,
               const AttentionViews& tensors, cudaStream_t stream = nullptr, KernelCounts* counts = nullptr);

// naive: S = scale·QKᵀ (fp32) and P = softmax(S) (dtype) materialized, O = P·V.
// Needs a layout whose rows all have one extent (padded, packed).
std::size_t naive_workspace_bytes(const Layout& layout, const AttentionProblem& problem);

class NaiveAttention {
 public:
  // Throws GpuMemoryError (bytes needed vs free) when the workspace does not fit.
  NaiveAttention(const DeviceLayout& layout, const AttentionProblem& problem);
  ~NaiveAttention();
  NaiveAttention(const NaiveAttention&) = delete;
  NaiveAttention& operator=(const NaiveAttention&) = delete;
  void run(AttentionTensors& tensors, cudaStream_t stream = nullptr);  // asynchronous, on `stream`
  std::size_t workspace_bytes() const { return scores_.bytes() + probs_.bytes(); }
  // P of the last run, [row][head][query][key] in the dtype: what the naive backward reads.
  const DeviceBuffer& probabilities() const { return probs_; }

 private:
  const DeviceLayout& layout_;
  AttentionProblem problem_;
  DeviceBuffer scores_, probs_;
  void* cublas_ = nullptr;
};

}  // namespace attnlab
