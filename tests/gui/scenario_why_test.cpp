// A shipped scenario's sentence of why (the Scenario view shows it above the model's own
// figures) may round a ratio, but never name the wrong one: "computes Nx" is the scores
// computed (in 64x64 tiles), "lets through Nx" the cells the mask lets through, each equal to
// the model's figure at the precision written. uniform-64x512 said "computes 8x" above the
// model's 7.22x.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>

#include "core/scenario/scenario_file.hpp"
#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {
namespace {

TEST(ScenarioWhy, EachRatioItNamesIsTheModelsAtItsPrecision) {
  const std::regex claim(R"((computes?|lets? through) (\d+(?:\.(\d+))?)x)");
  int claims = 0;
  for (const Scenario& s : list_scenarios()) {
    const ScenarioModel model = build_model(s, {64, 64});
    if (!model.ok()) continue;
    const ImplementationCost& packed = model.costs[Implementation::packed];
    for (auto it = std::sregex_iterator(s.why.begin(), s.why.end(), claim); it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      const bool computed = m[1].str().rfind("compute", 0) == 0;
      const double said = std::stod(m[2].str());
      const double step = std::pow(10.0, -double(m[3].length()));
      const double model_ratio = computed ? packed.computed_vs_varlen : packed.attended_vs_varlen;
      EXPECT_LE(std::fabs(model_ratio - said), step / 2 + 1e-9)
          << s.name << ": \"" << m.str() << "\" against the model's " << model_ratio;
      ++claims;
    }
  }
  EXPECT_GE(claims, 3);  // uniform-64x512's 8x, rows of 2048's 4x and the no-window d24's 4x are checked
}

}  // namespace
}  // namespace attnlab::gui
