#include "gui/views/view_list.hpp"

namespace attnlab::gui {

namespace {

// The list is in the enum's order, so a View indexes it (and the tab bar).
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < view_list.size(); ++i)
    if (view_list[i].view != static_cast<View>(i)) return false;
  return true;
}
static_assert(in_enum_order(), "view_list must list the views in the order of enum View");

}  // namespace

const ViewEntry& view_entry(View v) { return view_list[static_cast<std::size_t>(v)]; }

std::optional<View> parse_view(std::string_view name) {
  for (const ViewEntry& e : view_list)
    if (name == e.name) return e.view;
  return std::nullopt;
}

std::string view_names_text() {
  std::string text;
  for (std::size_t i = 0; i < view_list.size(); ++i)
    text += (i == 0 ? "" : i + 1 == view_list.size() ? " or " : ", ") + std::string(view_list[i].name);
  return text;
}

}  // namespace attnlab::gui
