#pragma once
// The training step's chain (analysis/step_chain.hpp) as bars: each link's number and unit,
// whether it is the cost model's, a prediction, a measurement or the article's, and the files
// it comes from. Made from the list of links as it is, whatever links it holds: a link added
// to the chain is drawn without a change here.
//
// The links carry their value as text and say what they are in words, so this reads both:
// the number back from the one formatter's text (format_ratio, format_percent, format_us),
// the basis from the label's words ("the article's", "predicted", "measured"; a link of the
// measured step's parts, "step time saved in ...", is measured), the sources from the files
// named in `how`. Where a link carries these as fields, they are read instead.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/step_chain.hpp"

namespace attnlab::gui {

enum class LinkUnit { ratio, percent, microseconds };  // packed / varlen; a share or saving; a time
enum class LinkBasis { model, predicted, measured, article };

const char* link_basis_name(LinkBasis basis);  // "model", "predicted", "measured", "the article"

struct LinkNumber {
  double value = 0;  // a ratio as 4.0, a percent as a fraction (0.083), a time in µs
  LinkUnit unit = LinkUnit::ratio;
};

// "4.00x", "8.30%", "-0.21%", "66,069 µs"; empty for "not measured" or any other text.
std::optional<LinkNumber> parse_link_value(std::string_view value);

struct ChainBar {
  const ChainLink* link = nullptr;
  std::optional<LinkNumber> number;  // empty: not measured
  LinkUnit unit = LinkUnit::ratio;   // the number's, or for "not measured" the unit its kind of link has
  LinkBasis basis = LinkBasis::model;
  std::string sources;  // the results files `how` names ("attnlab-step.csv"), else empty
};

std::vector<ChainBar> chain_bars(const std::vector<ChainLink>& chain);

}  // namespace attnlab::gui
