// The GPU itself: discovery, memory, layouts on the device.
#include <dlfcn.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/attention.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/launch_config.hpp"
#include "kernels/common/token_gather.hpp"
#include "kernels/common/work_list.hpp"

namespace attnlab {

namespace {

// The display driver's version ("580.159.04") from NVML, which ships with the
// driver. It is opened at run time, so the binary starts on machines without it.
std::string display_driver_version() {
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY);
  if (!nvml) return "";
  using Call = int (*)();
  using GetVersion = int (*)(char*, unsigned);
  const auto init = reinterpret_cast<Call>(dlsym(nvml, "nvmlInit_v2"));
  const auto get_version = reinterpret_cast<GetVersion>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
  const auto shutdown = reinterpret_cast<Call>(dlsym(nvml, "nvmlShutdown"));
  std::string version;
  if (init && get_version && shutdown && init() == 0) {
    char text[96] = {};
    if (get_version(text, sizeof text) == 0) version = text;
    shutdown();
  }
  dlclose(nvml);
  return version;
}

}  // namespace

GpuInfo query_gpu() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky error so later calls are not confused by it
    throw NoGpuError(std::string("no CUDA GPU on this machine (") +
                     (err != cudaSuccess ? cudaGetErrorString(err) : "no devices") + ")");
  }
  GpuInfo info;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  info.name = prop.name;
  info.compute_capability = prop.major * 10 + prop.minor;
  if (info.compute_capability < oldest_compute_capability)
    throw NoGpuError(info.name + " has compute capability " + std::to_string(prop.major) + "." +
                     std::to_string(prop.minor) + "; attnlab's kernels need 8.0 (Ampere) or newer");
  info.sm_count = prop.multiProcessorCount;
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  info.driver = display_driver_version();
  CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

void require_device_memory(std::size_t needed, const std::string& what) {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (needed > free)
    throw GpuMemoryError(what + " " + std::to_string(needed) + " bytes of device memory, " + std::to_string(free) +
                         " free");
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  require_device_memory(bytes, "needs");
  CUDA_CHECK(cudaMalloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes > bytes_) throw std::out_of_range("DeviceBuffer::upload: more bytes than the buffer holds");
  if (bytes) CUDA_CHECK(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice));
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  if (bytes > bytes_) throw std::out_of_range("DeviceBuffer::download: more bytes than the buffer holds");
  if (bytes) CUDA_CHECK(cudaMemcpy(host, ptr_, bytes, cudaMemcpyDeviceToHost));
}

void DeviceBuffer::poison() { poison_device_bytes(ptr_, bytes_); }

void poison_device_bytes(void* data, std::size_t bytes) {
  if (bytes) CUDA_CHECK(cudaMemset(data, 0xFF, bytes));
}

namespace {

template <typename T>
DeviceBuffer upload_vector(const std::vector<T>& host) {
  DeviceBuffer buf(std::max<std::size_t>(host.size(), 1) * sizeof(T));  // never null: kernels may form pointers
  buf.upload(host.data(), host.size() * sizeof(T));
  return buf;
}

}  // namespace

DeviceLayout::DeviceLayout(const Layout& layout, TileShape work_tile)
    : host_(&layout),
      work_tile_(work_tile),
      row_start_(upload_vector(layout.row_start)),
      row_valid_(upload_vector(layout.row_valid)),
      row_piece_(upload_vector(layout.row_piece)),
      piece_start_(upload_vector(layout.piece_start)),
      piece_doc_(upload_vector(layout.piece_doc)),
      token_doc_(upload_vector(layout.token_doc)),
      token_source_(upload_vector(layout.token_source)),
      row_queries_(upload_vector(layout.row_queries)) {
  const std::vector<WorkItem> work = flash_work_list(layout, work_tile);
  work_items_ = static_cast<int>(work.size());
  work_ = upload_vector(work);
  if (work_tile.rows == work_tile.cols) backward_work_ = upload_vector(flash_backward_work_list(layout, work_tile));
}

LayoutView DeviceLayout::view() const {
  return {host_->kind,
          host_->causal,
          host_->window,
          host_->num_rows(),
          static_cast<const int*>(row_start_.data()),
          static_cast<const int*>(row_valid_.data()),
          static_cast<const int*>(row_piece_.data()),
          static_cast<const int*>(piece_start_.data()),
          static_cast<const int*>(piece_doc_.data()),
          static_cast<const int*>(token_doc_.data()),
          host_->has_query_side() ? static_cast<const RowQueries*>(row_queries_.data()) : nullptr};
}

namespace {

// Refuses before any of Q, K, V, O, LSE is allocated, with the bytes of all five.
std::int64_t fitting_positions(std::int64_t positions, const AttentionProblem& p) {
  const std::size_t per_position = std::size_t(2 * p.heads + 2 * p.kv_heads) * p.head_dim * dtype_bytes(p.dtype) +
                                   std::size_t(p.heads) * sizeof(float);
  require_device_memory(std::size_t(positions) * per_position,
                        "Q, K, V, O and LSE of " + std::to_string(positions) + " positions need");
  return positions;
}

}  // namespace

AttentionTensors::AttentionTensors(std::int64_t positions_, const AttentionProblem& p)
    : positions(fitting_positions(positions_, p)),
      q(std::size_t(positions_) * p.heads * p.head_dim * dtype_bytes(p.dtype)),
      k(std::size_t(positions_) * p.kv_heads * p.head_dim * dtype_bytes(p.dtype)),
      v(std::size_t(positions_) * p.kv_heads * p.head_dim * dtype_bytes(p.dtype)),
      o(std::size_t(positions_) * p.heads * p.head_dim * dtype_bytes(p.dtype)),
      lse(std::size_t(positions_) * p.heads * sizeof(float)),
      work_counter(sizeof(int)) {}

namespace {

// One thread per 16-byte chunk of a position's row: copy it from the canonical
// token the position holds, or write zeros at padding.
__global__ void gather_rows(const std::int64_t* token_source, std::int64_t positions, int chunks_per_position,
                            const uint4* from, uint4* to) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= positions * chunks_per_position) return;
  const std::int64_t pos = i / chunks_per_position, chunk = i % chunks_per_position;
  const std::int64_t src = token_source[pos];
  to[i] = src >= 0 ? from[src * chunks_per_position + chunk] : uint4{0, 0, 0, 0};
}

}  // namespace

void gather_token_rows(const std::int64_t* source, std::int64_t positions, std::size_t row_bytes, const void* from,
                       void* to, cudaStream_t stream) {
  if (positions == 0) return;
  if (row_bytes % 16 != 0) throw std::logic_error("gather_token_rows: a position's row is not a multiple of 16 bytes");
  const int chunks = static_cast<int>(row_bytes / 16);
  constexpr int block = 256;
  const std::int64_t threads = positions * chunks;
  gather_rows<<<static_cast<unsigned>((threads + block - 1) / block), block, 0, stream>>>(
      source, positions, chunks, static_cast<const uint4*>(from), static_cast<uint4*>(to));
  CUDA_CHECK_LAUNCH();
}

void gather_qkv(const AttentionTensors& canonical, const DeviceLayout& to, AttentionTensors& out, cudaStream_t stream) {
  const Layout& layout = to.host();
  if (out.positions != layout.buffer_tokens())
    throw std::invalid_argument("gather_qkv: tensors hold " + std::to_string(out.positions) +
                                " positions, the layout " + std::to_string(layout.buffer_tokens()));
  for (std::int64_t src : layout.token_source)
    if (src >= canonical.positions)
      throw std::invalid_argument("gather_qkv: the layout reads past the canonical tokens");
  if (canonical.q.bytes() / std::max<std::int64_t>(canonical.positions, 1) !=
      out.q.bytes() / std::max<std::int64_t>(out.positions, 1))
    throw std::invalid_argument("gather_qkv: canonical and output tensors differ in heads or head dim");
  for (auto buffer : {&AttentionTensors::q, &AttentionTensors::k, &AttentionTensors::v})
    if (out.positions > 0)
      gather_token_rows(to.token_source(), out.positions, (out.*buffer).bytes() / out.positions,
                        (canonical.*buffer).data(), (out.*buffer).data(), stream);
}

}  // namespace attnlab
