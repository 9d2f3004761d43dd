#include "gui/views/chain_bars.hpp"

#include <charconv>

namespace attnlab::gui {

namespace {

bool has(std::string_view text, std::string_view word) { return text.find(word) != std::string_view::npos; }

LinkBasis basis_of(const ChainLink& link) {
  const std::string_view label = link.label;
  if (label.rfind("the article", 0) == 0) return LinkBasis::article;
  if (has(label, "predicted")) return LinkBasis::predicted;
  if (has(label, "measured") || label.rfind("step time saved", 0) == 0) return LinkBasis::measured;
  // A share of a time or a time made of measured parts at modelled shapes is a prediction.
  if (has(label, "time") || has(label, "at its bytes")) return LinkBasis::predicted;
  return LinkBasis::model;
}

// The unit a link's number has, read from its label where its value is "not measured".
LinkUnit unit_of(const ChainLink& link) {
  const std::string_view label = link.label;
  if (has(label, "at its bytes")) return LinkUnit::microseconds;
  if (has(label, "saving") || has(label, "share") || has(label, "saved") || has(label, "step"))
    return LinkUnit::percent;
  return LinkUnit::ratio;
}

// The results files `how` names, in order: "attnlab-step.csv", "results/h100/gemms/nanochat-d24.csv".
std::string files_named(std::string_view how) {
  std::string files;
  std::size_t at = 0;
  while ((at = how.find(".csv", at)) != std::string_view::npos) {
    std::size_t start = at;
    while (start > 0 && how[start - 1] != ' ' && how[start - 1] != '(' && how[start - 1] != ',') --start;
    const std::string_view file = how.substr(start, at + 4 - start);
    if (!has(files, file)) files += (files.empty() ? "" : ", ") + std::string(file);
    at += 4;
  }
  return files;
}

}  // namespace

const char* link_basis_name(LinkBasis basis) {
  switch (basis) {
    case LinkBasis::model: return "model";
    case LinkBasis::predicted: return "predicted";
    case LinkBasis::measured: return "measured";
    case LinkBasis::article: return "the article";
  }
  return "";
}

std::optional<LinkNumber> parse_link_value(std::string_view value) {
  std::string digits;
  std::size_t i = 0;
  for (; i < value.size() && (value[i] == '-' || value[i] == '.' || value[i] == ',' || value[i] == 'e' ||
                              value[i] == '+' || (value[i] >= '0' && value[i] <= '9'));
       ++i)
    if (value[i] != ',') digits += value[i];
  double number = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  const std::string_view unit = value.substr(i);
  if (unit == "x") return LinkNumber{number, LinkUnit::ratio};
  if (unit == "%") return LinkNumber{number / 100, LinkUnit::percent};
  if (unit == " \xC2\xB5s") return LinkNumber{number, LinkUnit::microseconds};
  return std::nullopt;
}

std::vector<ChainBar> chain_bars(const std::vector<ChainLink>& chain) {
  std::vector<ChainBar> bars;
  for (const ChainLink& link : chain) {
    ChainBar bar{&link, parse_link_value(link.value), unit_of(link), basis_of(link), files_named(link.how)};
    if (bar.number) bar.unit = bar.number->unit;
    bars.push_back(std::move(bar));
  }
  return bars;
}

}  // namespace attnlab::gui
