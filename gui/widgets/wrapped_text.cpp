#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

#include <imgui_internal.h>  // the wrap position a caller pushed

namespace attnlab::gui {

void wrapped_text_v(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text(n > 0 ? std::size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
  // To the wrap position a caller pushed (PushTextWrapPos), else to the region's edge.
  const float wrap_at = ImGui::GetCurrentWindow()->DC.TextWrapPos;
  const float room = wrap_at > 0 ? wrap_at - ImGui::GetCursorPosX() : ImGui::GetContentRegionAvail().x;
  const float width = std::max(room, ImGui::GetFontSize() * 4);
  ImGui::PushTextWrapPos(-1.0f);  // the lines are cut here; Dear ImGui must not cut a long word again
  ImGui::BeginGroup();            // after SameLine, every line starts where the first does
  for (const std::string& line : wrap_at_spaces(
           text, width, [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; }))
    ImGui::TextUnformatted(line.c_str());
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
}

void wrapped_text(const char* format, ...) {
  va_list args;
  va_start(args, format);
  wrapped_text_v(format, args);
  va_end(args);
}

void wrapped_text_colored(const ImVec4& color, const char* format, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  va_list args;
  va_start(args, format);
  wrapped_text_v(format, args);
  va_end(args);
  ImGui::PopStyleColor();
}

}  // namespace attnlab::gui
