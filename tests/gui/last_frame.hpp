#pragma once
// What the last frame drew, read back from Dear ImGui's draw lists (valid until the next frame):
// its text, its filled rectangles and its shapes of one colour.
//
// Text: every textured quad of the font atlas whose texture corners are a glyph's is that glyph,
// at that place, under that scissor rectangle. A glyph reaching past its scissor (by more than the
// pixel of blank margin its quad keeps) is cut on screen; one wholly past it is not drawn at all.
// So a string found here, each of its glyphs inside its scissor, is what a person sees in full; a
// string cut anywhere is not found.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace attnlab::gui {

struct DrawnRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool inside(const DrawnRect& outer, float slack = 0.5f) const {
    return x0 >= outer.x0 - slack && y0 >= outer.y0 - slack && x1 <= outer.x1 + slack && y1 <= outer.y1 + slack;
  }
  bool overlaps(const DrawnRect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  DrawnRect grown(float by) const { return {x0 - by, y0 - by, x1 + by, y1 + by}; }
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
};

// One line of glyphs drawn one after another by one call.
struct DrawnLine {
  std::string text;               // UTF-8; a space where the pen skipped one; a glyph cut by its scissor as U+FFFD
  std::vector<DrawnRect> glyphs;  // each glyph's quad, in the order of `text`'s visible characters
  DrawnRect rect;                 // all of them
  DrawnRect clip;                 // the scissor rectangle they were drawn under
  int list = 0;                   // the draw list (one per window) that drew it
};

namespace last_frame_detail {

inline void append_utf8(std::string& s, unsigned c) {
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6));
    s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xE0 | (c >> 12));
    s += char(0x80 | ((c >> 6) & 0x3F));
    s += char(0x80 | (c & 0x3F));
  }
}

// Whitespace runs as one space, none at the ends: wrapped text compares with the text it wraps.
inline std::string one_spaced(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Calls `quad(list, cmd, top_left, bottom_right)` for each quad drawn as two triangles
// (a, a+1, a+2) and (a, a+2, a+3), the way Dear ImGui draws glyphs and filled rectangles.
template <typename Quad>
void for_each_quad(Quad&& quad) {
  const ImDrawData* data = ImGui::GetDrawData();
  if (!data || !data->Valid) return;
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList& list = *data->CmdLists[l];
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) continue;
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      for (unsigned t = 0; t + 6 <= cmd.ElemCount; t += 3) {
        const unsigned a = idx[t];
        if (idx[t + 1] != a + 1 || idx[t + 2] != a + 2 || idx[t + 3] != a || idx[t + 4] != a + 2 || idx[t + 5] != a + 3)
          continue;
        if (quad(l, cmd, vtx[a], vtx[a + 1], vtx[a + 2], vtx[a + 3])) t += 3;
      }
    }
  }
}

}  // namespace last_frame_detail

// The lines of text of the last frame, in drawing order.
inline std::vector<DrawnLine> drawn_lines() {
  using Corners = std::tuple<float, float, float, float>;
  const ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
  std::map<Corners, const ImFontGlyph*> glyph_of;
  float space_advance = 0;  // at the font's own size
  for (const ImFont* font : atlas.Fonts) {
    for (const ImFontGlyph& g : font->Glyphs)
      if (g.Visible) glyph_of[{g.U0, g.V0, g.U1, g.V1}] = &g;
    if (const ImFontGlyph* space = font->FindGlyphNoFallback(' ')) space_advance = space->AdvanceX;
  }
  std::vector<DrawnLine> lines;
  const ImDrawCmd* last_cmd = nullptr;
  float pen_end = 0, pen_y = 0, scale = 0;  // where the last glyph's line would go on
  last_frame_detail::for_each_quad([&](int l, const ImDrawCmd& cmd, const ImDrawVert& tl, const ImDrawVert&,
                                       const ImDrawVert& br, const ImDrawVert&) {
    if (cmd.TextureId != atlas.TexID) return false;
    const auto found = glyph_of.find({tl.uv.x, tl.uv.y, br.uv.x, br.uv.y});
    if (found == glyph_of.end()) return false;  // a shape, or a glyph trimmed on the CPU
    const ImFontGlyph& g = *found->second;
    const DrawnRect quad{tl.pos.x, tl.pos.y, br.pos.x, br.pos.y};
    const DrawnRect clip{cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w};
    const float s = (quad.y1 - quad.y0) / (g.Y1 - g.Y0);
    const float pen = quad.x0 - g.X0 * s, y = quad.y0 - g.Y0 * s, space = space_advance * s;
    const float skipped = std::round((pen - pen_end) / space);
    const bool same_line = last_cmd == &cmd && std::abs(y - pen_y) < 0.5f && std::abs(s - scale) < 0.01f &&
                           skipped >= 0 && skipped <= 4 && std::abs(pen - pen_end - skipped * space) < 0.3f * space;
    if (!same_line) lines.push_back({{}, {}, quad, clip, l});
    DrawnLine& line = lines.back();
    line.text.append(std::size_t(same_line ? skipped : 0), ' ');
    last_frame_detail::append_utf8(line.text, quad.inside(clip, 1) ? unsigned(g.Codepoint) : 0xFFFDu);
    line.glyphs.push_back(quad);
    line.rect = {std::min(line.rect.x0, quad.x0), std::min(line.rect.y0, quad.y0), std::max(line.rect.x1, quad.x1),
                 std::max(line.rect.y1, quad.y1)};
    last_cmd = &cmd;
    pen_end = pen + g.AdvanceX * s;
    pen_y = y;
    scale = s;
    return true;
  });
  return lines;
}

// Everywhere `text` was drawn in full, maybe wrapped over consecutive lines of one draw list: for
// each place, the lines holding it (none where a glyph of it was cut or left out).
inline std::vector<std::vector<const DrawnLine*>> find_all_drawn(const std::vector<DrawnLine>& lines,
                                                                 std::string_view text) {
  const std::string wanted = last_frame_detail::one_spaced(text);
  std::vector<std::vector<const DrawnLine*>> places;
  if (wanted.empty()) return places;
  for (std::size_t first = 0; first < lines.size();) {
    std::size_t end = first;  // the lines of one draw list, joined as wrapped text reads
    std::string joined;
    std::vector<std::size_t> starts;
    for (; end < lines.size() && lines[end].list == lines[first].list; ++end) {
      if (!joined.empty()) joined += ' ';
      starts.push_back(joined.size());
      joined += last_frame_detail::one_spaced(lines[end].text);
    }
    const auto line_at = [&](std::size_t offset) {
      return first + std::size_t(std::upper_bound(starts.begin(), starts.end(), offset) - starts.begin()) - 1;
    };
    for (std::size_t at = joined.find(wanted); at != std::string::npos; at = joined.find(wanted, at + 1)) {
      places.emplace_back();
      for (std::size_t i = line_at(at); i <= line_at(at + wanted.size() - 1); ++i) places.back().push_back(&lines[i]);
    }
    first = end;
  }
  return places;
}

// The first place `text` was drawn in full (see find_all_drawn); empty where none.
inline std::vector<const DrawnLine*> find_drawn(const std::vector<DrawnLine>& lines, std::string_view text) {
  std::vector<std::vector<const DrawnLine*>> places = find_all_drawn(lines, text);
  return places.empty() ? std::vector<const DrawnLine*>{} : places.front();
}

inline bool drawn_whole(const std::vector<DrawnLine>& lines, std::string_view text) {
  return !find_drawn(lines, text).empty();
}

// The filled rectangles of one colour (AddRectFilled without rounding), in drawing order.
inline std::vector<DrawnRect> drawn_filled_rects(ImU32 color) {
  std::vector<DrawnRect> rects;
  last_frame_detail::for_each_quad(
      [&](int, const ImDrawCmd&, const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c, const ImDrawVert& d) {
        if (a.col != color || b.col != color || c.col != color || d.col != color) return false;
        if (a.pos.y != b.pos.y || b.pos.x != c.pos.x || c.pos.y != d.pos.y || d.pos.x != a.pos.x) return false;
        rects.push_back({a.pos.x, a.pos.y, c.pos.x, c.pos.y});
        return true;
      });
  return rects;
}

// A shape's solid vertices as one rectangle, and the scissor it was drawn under.
struct DrawnShape {
  DrawnRect solid;
  DrawnRect clip;
};

// Each shape drawn in `color` (a frame's stroke, say): a run of consecutive vertices of that colour,
// its anti-aliased edge (the same colour, transparent) among them.
inline std::vector<DrawnShape> drawn_shapes(ImU32 color) {
  std::vector<DrawnShape> shapes;
  const ImDrawData* data = ImGui::GetDrawData();
  if (!data || !data->Valid) return shapes;
  const ImU32 faded = color & ~IM_COL32_A_MASK;
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList& list = *data->CmdLists[l];
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback || cmd.ElemCount == 0) continue;
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const auto [first, last] = std::minmax_element(idx, idx + cmd.ElemCount);
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      bool open = false;
      for (unsigned v = *first; v <= *last; ++v) {
        const ImDrawVert& p = vtx[v];
        if (p.col != color && p.col != faded) {
          open = false;
          continue;
        }
        if (!open)
          shapes.push_back({{INFINITY, INFINITY, -INFINITY, -INFINITY},
                            {cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w}});
        open = true;
        if (p.col != color) continue;
        DrawnRect& r = shapes.back().solid;
        r = {std::min(r.x0, p.pos.x), std::min(r.y0, p.pos.y), std::max(r.x1, p.pos.x), std::max(r.y1, p.pos.y)};
      }
    }
  }
  std::erase_if(shapes, [](const DrawnShape& shape) { return shape.solid.x0 > shape.solid.x1; });
  return shapes;
}

}  // namespace attnlab::gui
