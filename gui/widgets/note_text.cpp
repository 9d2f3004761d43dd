#include "gui/widgets/note_text.hpp"

#include <cstdarg>

#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

void note_text(const char* format, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  va_list args;
  va_start(args, format);
  wrapped_text_v(format, args);
  va_end(args);
  ImGui::PopStyleColor();
}

}  // namespace attnlab::gui
