#include "gui/views/timings/run_names.hpp"

#include <imgui.h>

#include "analysis/source_ratios.hpp"
#include "gui/widgets/implementation_colors.hpp"

namespace attnlab::gui {

std::optional<Implementation> implementation_of(std::string_view name) {
  for (Implementation i : all_implementations)
    if (name == implementation_name(i)) return i;
  return std::nullopt;
}

void show_implementation_name(const ResultRow& r, const Kernels& kernels) {
  const std::string label = run_label(r, kernels.named());
  const auto impl = implementation_of(r.implementation);
  if (!impl) {
    ImGui::TextUnformatted(label.c_str());
    return;
  }
  const ImU32 color = implementation_color(*impl);
  if (kernels.named()) {
    const float side = ImGui::GetTextLineHeight();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float radius =
        side / 2 * marker_reach(0) / marker_reach(int(kernels.ours.size()) - 1);  // the same for every kernel
    draw_marker(ImGui::GetWindowDrawList(), ImVec2(at.x + side / 2, at.y + side / 2), radius, MarkerShape::circle,
                color, true, kernel_rings(kernels.ours, r));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine(0, 4);
  }
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color), "%s", label.c_str());
}

}  // namespace attnlab::gui
