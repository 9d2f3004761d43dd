// Measured runs stand for the scenario shown only where they computed its cells: an edit
// that keeps a shipped scenario's name is matched by its cells, never by the name.
#include <gtest/gtest.h>

#include "analysis/same_cells.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/views/step_figures.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

// Every layer time the Training step finds for the state's scenario was measured on a
// shipped scenario that computes the layer's cells.
// Returns how many it found.
int expect_step_times_of_the_same_cells(const AppState& state) {
  const TrainingStep step = model_training_step(state.scenario, *state.scenario.model);
  const MeasuredRuns runs = measured_runs(state);
  int found = 0;
  for (KernelFamily family : all_kernel_families) {
    const StepTimePrediction p = predict_step_time(state.scenario, step, family, 700.0, std::nullopt, runs);
    for (const ImplementationStepTime* t : {&p.packed, &p.varlen})
      for (LayerKind kind : all_layer_kinds)
        for (Pass pass : {Pass::fwd, Pass::bwd})
          if (const auto& m = t->layer[int(kind)][int(pass)]) {
            SCOPED_TRACE(m->scenario + " " + implementation_name(m->implementation));
            ++found;
            const Scenario layer = layer_scenario(state.scenario, *state.scenario.model, kind);
            EXPECT_TRUE(computes_same_cells(layer, t->implementation, load_scenario(m->scenario), m->implementation));
          }
  }
  return found;
}

TEST(MeasuredScenario, TheShippedStepFindsItsRuns) {
  const AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  EXPECT_GT(expect_step_times_of_the_same_cells(state), 0);
}

TEST(MeasuredScenario, AnEditedStepIsMatchedByItsCellsNotItsName) {
  AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  ASSERT_TRUE(set_field(state, *find_scenario_field("document length"), 256));
  apply_edit(state, [](Scenario& s) { s.model->window_pattern = "L"; });
  ASSERT_EQ(state.scenario.name, "nanochat-d24");
  ASSERT_EQ(state.scenario.total_tokens(), 64 * 256);
  expect_step_times_of_the_same_cells(state);
}

// Costs and Timings take the rows of the shipped scenario that computes the edit's cells:
// an edit back to the shipped lengths has them, an edit to other lengths has none.
// The Training step view's measured step is the shipped scenario's alone: a model edited in the
// view (fewer layers, the same 32,768 tokens) shows none, and undoing the edit brings it back.
TEST(MeasuredScenario, AnEditedModelHasNoMeasuredStep) {
  AppState state = make_app_state("nanochat-d24", shipped_results_folder);
  ASSERT_FALSE(step_figures(state).measured.empty());
  apply_edit(state, [](Scenario& s) { s.model->layers = 12; });
  ASSERT_EQ(state.scenario.name, "nanochat-d24");
  EXPECT_TRUE(step_figures(state).measured.empty());
  apply_edit(state, [](Scenario& s) { s.model->layers = 24; });
  EXPECT_FALSE(step_figures(state).measured.empty());
}

TEST(MeasuredScenario, CostsAndTimingsMatchAnEditByItsCells) {
  AppState state = make_app_state("uniform-64x512", shipped_results_folder);
  const Configuration shipped = own_configuration(state.scenario, Pass::fwd);
  EXPECT_EQ(measured_configuration(state, state.model(), Pass::fwd), shipped);
  ASSERT_TRUE(set_field(state, *find_scenario_field("documents"), 32));
  EXPECT_EQ(measured_configuration(state, state.model(), Pass::fwd), std::nullopt);
  ASSERT_TRUE(set_field(state, *find_scenario_field("documents"), 64));
  ASSERT_TRUE(state.scenario_edited);
  EXPECT_EQ(measured_configuration(state, state.model(), Pass::fwd), shipped);
  // The same cells under another name: the shipped scenario's rows describe them.
  apply_edit(state, [](Scenario& s) { s.name = "my-article-case"; });
  EXPECT_EQ(measured_configuration(state, state.model(), Pass::bwd),
            own_configuration(load_scenario("uniform-64x512"), Pass::bwd));
}

}  // namespace
}  // namespace attnlab::gui
