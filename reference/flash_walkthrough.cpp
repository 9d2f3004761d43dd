#include "reference/flash_walkthrough.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/cost/hbm_bytes.hpp"

namespace attnlab {

namespace {

void check_index(int value, int limit, const char* what) {
  if (value < 0 || value >= limit)
    throw std::out_of_range(std::string("flash walkthrough: ") + what + " " + std::to_string(value) + " outside [0, " +
                            std::to_string(limit) + ")");
}

}  // namespace

FlashWalkthrough::FlashWalkthrough(const Layout& layout, const AttentionInputs& canonical, double scale, TileShape tile,
                                   int row, int query_tile, int head)
    : layout_(layout),
      tile_(tile),
      scale_(scale),
      element_bytes_(dtype_bytes(canonical.dtype)),
      query_tile_(query_tile) {
  if (tile.rows <= 0 || tile.cols <= 0) throw std::invalid_argument("flash walkthrough: tile sides must be positive");
  check_index(row, layout_.num_rows(), "row");
  const LayoutView view = layout_.view();
  check_index(query_tile, query_tiles(view, tile_, row), "query tile");
  check_index(head, canonical.heads, "head");
  operands_ = load_row_head(layout_, canonical, row, head);
  total_key_tiles_ = key_tiles_visited(view, tile_, row, query_tile).count();
  restart();
}

void FlashWalkthrough::restart() {
  state_ = start_query_tile(layout_.view(), tile_, operands_.row, query_tile_, operands_.head_dim);
}

void FlashWalkthrough::step() {
  if (!finished()) visit_next_key_tile(layout_.view(), tile_, operands_, scale_, state_);
}

int FlashWalkthrough::loaded_key_first() const { return std::max(loaded_key_tile(), 0) * tile_.cols; }
int FlashWalkthrough::loaded_key_end() const {
  return loaded_key_tile() < 0 ? 0 : std::min(loaded_key_first() + tile_.cols, operands_.extent);
}

std::int64_t FlashWalkthrough::flash_bytes() const {
  const std::int64_t d = operands_.head_dim, e = element_bytes_, queries = state_.queries;
  const TileRange visited{state_.key_tiles.first, state_.key_tiles.first + steps_done()};
  const std::int64_t keys = keys_loaded(visited, tile_, operands_.extent);
  std::int64_t bytes = queries * d * e + 2 * keys * d * e;  // Q tile, then K and V tiles
  if (finished()) bytes += queries * (d * e + lse_bytes);   // O tile and its LSE
  return bytes;
}

std::int64_t FlashWalkthrough::naive_bytes() const {
  const std::int64_t d = operands_.head_dim, e = element_bytes_, queries = state_.queries, keys = operands_.extent;
  const std::int64_t qkvo = (2 * queries + 2 * keys) * d * e;    // Q, K, V read, O written
  const std::int64_t scores = 2 * queries * keys * score_bytes;  // S written and read
  const std::int64_t probabilities = 2 * queries * keys * e;     // P written and read
  return qkvo + scores + probabilities;
}

}  // namespace attnlab
