#include "gui/views/layout_caption.hpp"

namespace attnlab::gui {

namespace {

// What a token sees of its row or document under the scenario's mask: "the 512 keys before
// it", "512 keys before it and 64 after", or empty where it sees the whole of it (causally or not).
std::string window_reach(const Scenario& s) {
  if (!s.window.any()) return {};
  std::string reach = "the " + std::to_string(s.window.left) + " keys before it";
  if (!s.causal && s.window.right > 0) reach += " and " + std::to_string(s.window.right) + " after";
  return reach;
}

}  // namespace

std::string layout_caption(Implementation impl, const Scenario& s) {
  const std::string reach = window_reach(s);
  switch (impl) {
    case Implementation::naive: return "padded rows, S and P materialized (one tile per row)";
    case Implementation::padded: return "padded rows, flash tiles";
    case Implementation::packed:
      if (!reach.empty()) return "packed rows, each token sees " + reach + " in its row, across documents";
      return s.causal ? "packed rows, causal over the whole row" : "packed rows, each token sees its whole row";
    case Implementation::varlen:
      return "one buffer, tiles only inside each document" +
             (reach.empty() ? std::string() : "; each token sees " + reach + " in its document");
  }
  return "";
}

}  // namespace attnlab::gui
