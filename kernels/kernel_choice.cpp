#include "kernels/kernel_choice.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/io/input_error.hpp"
#include "kernels/common/launch_config.hpp"

namespace attnlab {

namespace {

std::string capability_name(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

// ATTNLAB_LAUNCH_AS=sm_86 launches every kernel as an sm_86 would (launch_config.hpp):
// then only the kernels an sm_86 runs are chosen too (the Hopper kernel is not).
int capability_to_choose_for(int compute_capability) {
  const char* launch_as = std::getenv(launch_as_variable);
  if (!launch_as || !*launch_as) return compute_capability;
  limits_for_launch(DeviceLimits{}, launch_as);  // InputError naming the variable for a value it does not know
  return std::min(compute_capability, std::stoi(std::string(launch_as).substr(3)));
}

}  // namespace

bool flash_kernel_built([[maybe_unused]] FlashKernel k) {  // every kernel where the Hopper library is built
#ifdef ATTNLAB_HAS_HOPPER_KERNEL
  return true;
#else
  return flash_kernel_info(k).min_compute_capability < 90;
#endif
}

std::string flash_kernel_names() {
  std::string names;
  for (const FlashKernelInfo& k : flash_kernels) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

FlashKernel parse_flash_kernel(std::string_view name, std::string_view flag) {
  for (const FlashKernelInfo& k : flash_kernels)
    if (name == k.name) return k.kernel;
  throw InputError(std::string(flag) + ": expected one of " + flash_kernel_names() + ", got \"" + std::string(name) +
                   "\"");
}

FlashKernel choose_flash_kernel(std::string_view name, int device_capability, std::string_view flag, bool backward) {
  const int compute_capability = capability_to_choose_for(device_capability);
  if (name.empty()) {
    for (const FlashKernelInfo& k : flash_kernels)
      if (!is_rung(k) && compute_capability >= k.min_compute_capability && flash_kernel_built(k.kernel) &&
          (k.default_backward || !backward))
        return k.kernel;
    // A GPU too old for any of them is as good as none.
    throw NoGpuError("no flash kernel of this build (" + flash_kernel_names() + ") runs on compute capability " +
                     capability_name(compute_capability));
  }
  const FlashKernelInfo& k = flash_kernel_info(parse_flash_kernel(name, flag));
  if (compute_capability < k.min_compute_capability)
    throw InputError(std::string(flag) + ": " + k.name + " needs compute capability " +
                     capability_name(k.min_compute_capability) + " or later, this GPU has " +
                     capability_name(compute_capability));
  if (!flash_kernel_built(k.kernel))
    throw InputError(std::string(flag) + ": " + k.name + " is not in this build (its CUDA architectures lack sm_90)");
  if (backward && !k.has_backward) throw InputError(std::string(flag) + ": " + k.name + " has no backward pass");
  return k.kernel;
}

}  // namespace attnlab
