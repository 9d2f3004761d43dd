// The host API in a build without CUDA: everything that needs a GPU says so.
#include "kernels/attention.hpp"
#include "kernels/backward.hpp"
#include "kernels/context_parallel.hpp"

namespace attnlab {

namespace {
[[noreturn]] void no_cuda() { throw NoGpuError("this build has no CUDA support"); }
}  // namespace

GpuInfo query_gpu() { no_cuda(); }

void require_device_memory(std::size_t, const std::string&) { no_cuda(); }
DeviceBuffer::DeviceBuffer(std::size_t) { no_cuda(); }
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&&) noexcept = default;
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&&) noexcept = default;
void DeviceBuffer::upload(const void*, std::size_t) { no_cuda(); }
void DeviceBuffer::download(void*, std::size_t) const { no_cuda(); }
void DeviceBuffer::poison() { no_cuda(); }
void poison_device_bytes(void*, std::size_t) { no_cuda(); }

DeviceLayout::DeviceLayout(const Layout&, TileShape) { no_cuda(); }
LayoutView DeviceLayout::view() const { no_cuda(); }

AttentionTensors::AttentionTensors(std::int64_t, const AttentionProblem&) { no_cuda(); }

void gather_qkv(const AttentionTensors&, const DeviceLayout&, AttentionTensors&, cudaStream_t) { no_cuda(); }

void run_flash(FlashKernel, const DeviceLayout&, const AttentionProblem&, const AttentionViews&, cudaStream_t,
               KernelCounts*) {
  no_cuda();
}

std::size_t naive_workspace_bytes(const Layout&, const AttentionProblem&) { no_cuda(); }
NaiveAttention::NaiveAttention(const DeviceLayout& layout, const AttentionProblem&) : layout_(layout) { no_cuda(); }
NaiveAttention::~NaiveAttention() = default;
void NaiveAttention::run(AttentionTensors&, cudaStream_t) { no_cuda(); }

GradientTensors::GradientTensors(std::int64_t, const AttentionProblem&) { no_cuda(); }
std::size_t gradient_tensor_bytes(std::int64_t, const AttentionProblem&) { no_cuda(); }
void upload_d_o(GradientTensors&, DType, const std::vector<float>&) { no_cuda(); }
HostGradients download_gradients(const GradientTensors&, DType) { no_cuda(); }
void run_flash_backward(FlashKernel, const DeviceLayout&, const AttentionProblem&, const AttentionViews&,
                        const GradientViews&, cudaStream_t, KernelCounts*) {
  no_cuda();
}
std::size_t naive_backward_workspace_bytes(const Layout&, const AttentionProblem&) { no_cuda(); }
NaiveBackward::NaiveBackward(const DeviceLayout& layout, const AttentionProblem&) : layout_(layout) { no_cuda(); }
NaiveBackward::~NaiveBackward() = default;
void NaiveBackward::run(const NaiveAttention&, const AttentionTensors&, GradientTensors&, cudaStream_t) { no_cuda(); }

DeviceCpPieces::DeviceCpPieces(const CpPieceLayouts& pieces, TileShape) : host_(&pieces) { no_cuda(); }
CpStepTensors::CpStepTensors(const DeviceCpPieces&, const AttentionTensors&, const AttentionProblem&, cudaStream_t) {
  no_cuda();
}
CpOutputSums::CpOutputSums(std::int64_t queries, const AttentionProblem& problem)
    : queries_(queries), problem_(problem) {
  no_cuda();
}
void CpOutputSums::clear(cudaStream_t) { no_cuda(); }
void CpOutputSums::add(FlashKernel, const DeviceCpPieces&, const void*, const void*, const void*, cudaStream_t, int) {
  no_cuda();
}
void CpOutputSums::write(void*, float*, cudaStream_t) const { no_cuda(); }
std::vector<float> CpOutputSums::download_o() const { no_cuda(); }
std::vector<float> CpOutputSums::download_lse() const { no_cuda(); }

}  // namespace attnlab
