#pragma once
// How the Timings view names a run: its implementation (and flash kernel, where several
// of ours are loaded) in the implementation's colour, after the marker the roofline draws.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/implementation.hpp"
#include "core/results/results_csv.hpp"

namespace attnlab::gui {

// One of ours, by the name a results row gives it; none for a peer's kernel name.
std::optional<Implementation> implementation_of(std::string_view name);

// Our flash kernels as the view tells them apart (several loaded: named, and ringed on the plot).
struct Kernels {
  std::vector<std::string> ours;  // our_flash_kernels
  bool named() const { return ours.size() > 1; }
};

// A run's implementation (and kernel, where named) in its plots' colour, after its
// roofline marker where kernels are named (a peer's kernel name as it is).
void show_implementation_name(const ResultRow& r, const Kernels& kernels);

}  // namespace attnlab::gui
