#include "gui/views/app_frame.hpp"

#include <imgui.h>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/views/view_list.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// Which kernel of ours every view shows, and the tile the model follows: a choice where several
// are loaded, named where one is.
void show_kernel_choice(AppState& state) {
  const std::vector<OurKernel> kernels = our_kernels(state);
  if (kernels.empty() || (kernels.size() == 1 && kernels[0].name.empty())) return;  // a file naming no kernel
  const OurKernel shown = shown_kernel(state);
  const auto label = [](const OurKernel& k) {
    return k.name + (k.tile ? " (" + tile_name(*k.tile) + " tiles)" : std::string());
  };
  // On the scenario's line where it fits, else on a line of its own (large text).
  const float combo = ImGui::CalcTextSize(label(shown).c_str()).x + ImGui::GetFrameHeight() * 2;
  const float needed = ImGui::CalcTextSize("| ours: ").x + combo + ImGui::GetStyle().ItemSpacing.x * 3;
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x >= needed) {
    ImGui::TextDisabled("|");
    ImGui::SameLine();
  } else {
    ImGui::NewLine();
  }
  if (kernels.size() == 1) {
    ImGui::Text("ours: %s", label(shown).c_str());
    return;
  }
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("ours:");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(combo);
  if (ImGui::BeginCombo("##our kernel", label(shown).c_str())) {
    for (const OurKernel& k : kernels)
      if (ImGui::Selectable(label(k).c_str(), k.name == shown.name)) choose_kernel(state, k.name);
    ImGui::EndCombo();
  }
}

void show_header(AppState& state) {
  const ScenarioModel& model = state.model();
  ImGui::Text("attnlab");
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::Text("scenario %s%s: %s, %s, tile %dx%d", state.scenario.name.c_str(),
              state.scenario_edited ? " (edited)" : "",
              count_of(std::ssize(state.scenario.doc_lengths), "document").c_str(),
              count_of(state.scenario.total_tokens(), "token").c_str(), model.tile.rows, model.tile.cols);
  if (!state.model_is_current()) {
    ImGui::SameLine();
    ImGui::TextDisabled("(updating the model...)");
  }
  show_kernel_choice(state);
  const float slider = ImGui::GetFontSize() * 8;
  const float control = slider + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("text size").x;
  const float right = ImGui::GetWindowContentRegionMax().x;
  // Right-aligned after the scenario line, or on a line of its own when the text is large.
  if (ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + control + ImGui::GetFontSize() < right)
    ImGui::SameLine(right - control);
  ImGui::SetNextItemWidth(slider);
  // Applied before the next frame (fonts are rebuilt between frames).
  ImGui::SliderFloat("text size", &state.text_scale, 0.75f, 3.0f, "%.2fx");
}

}  // namespace

bool show_model_error(AppState& state) {
  const ScenarioModel& model = state.model();
  if (model.ok()) return false;
  wrapped_text("The scenario cannot be laid out: %s", model.error.c_str());
  return true;
}

void show_pass_choice(AppState& state) {
  if (ImGui::RadioButton("forward", state.pass == Pass::fwd)) state.pass = Pass::fwd;
  ImGui::SameLine();
  if (ImGui::RadioButton("backward", state.pass == Pass::bwd)) state.pass = Pass::bwd;
}

void draw_app(AppState& state) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings |
                                     ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("attnlab", nullptr, flags);
  show_header(state);
  // Tabs keep their whole titles at any text size: where they do not fit, the bar scrolls.
  if (ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (const ViewEntry& v : view_list) {
      const bool select = state.view_requested && state.view == v.view;
      if (ImGui::BeginTabItem(v.title, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0)) {
        if (state.view_requested && !select) {
          // Another tab was asked for and opens on this frame or the next: this one draws nothing (the
          // Story, the first tab, would open its own scenario over the one asked for).
          ImGui::EndTabItem();
          continue;
        }
        state.view = v.view;
        state.view_requested = false;
        ImGui::BeginChild("view");
        v.show(state);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

}  // namespace attnlab::gui
