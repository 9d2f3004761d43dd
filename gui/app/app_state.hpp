#pragma once
// The one state every view is a function of, as in Dear ImGui's own demo. The
// scenario is what the user edits; the model is rebuilt from it whenever it
// changes, through model(), never kept in sync by hand.
#include <array>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cost/context_parallel.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/app/live_run.hpp"
#include "gui/app/results_state.hpp"
#include "gui/app/scenario_model.hpp"
#include "gui/app/walkthrough_state.hpp"

namespace attnlab::gui {

struct TimingsData;  // what the Timings view derives from the rows (views/timings/timings_data.hpp)

// The views, in tab order; their names, titles and drawing functions are listed once,
// in gui/views/view_list.hpp.
enum class View { story, scenario, masks, costs, timings, walkthrough, step, context_parallel };

// A figure the Story points at: the view that draws it frames it while the Story shows it.
enum class Figure { none, packed_mask, ratio_chain, source_ratios, roofline, step_measured, step_shares, step_saving };

// Zoom and pan of one mask picture: picture cell at the panel's top-left and
// screen pixels per cell. Scale 0 means "fit": the first fit_cells cells across,
// or the whole picture when fit_cells is 0.
struct MaskViewport {
  double origin_q = 0, origin_k = 0;
  double pixels_per_cell = 0;
  double fit_cells = 0;
};

// Where a mask picture was drawn in the last frame (screen pixels), with the zoom
// it was drawn at: what the mouse and the pixel tests map cells through.
struct MaskPlacement {
  float x = 0, y = 0, side = 0;
  double pixels_per_cell = 0, origin_q = 0, origin_k = 0;
  std::int64_t cells_per_bin = 1;  // > 1: each painted block stands for that many cells squared (block_class)
};

struct AppState {
  Scenario scenario;             // as edited; resolved (doc_lengths follow length_source)
  TileShape tile{64, 64};        // the flash kernels' tile: that of our kernel shown (our_kernel.hpp), or as picked
  std::string scenario_error;    // the last edit's InputError, shown in the Scenario view
  bool scenario_edited = false;  // changed since it was read: its file's sentence of why no longer describes it

  View view = View::story;          // the Story first: it says what every other view is for
  int story_step = 0;               // the Story's step shown (story_steps.hpp)
  Figure highlight = Figure::none;  // set by the Story while it draws a step's view
  int story_scroll_frames = 0;      // frames left in which the step's view scrolls its figure into sight
  bool view_requested = true;       // select `view` in the tab bar on the next frame (start, headless, keys)
  float text_scale = 1.0f;          // 1 = the default size; larger for a projector
  Pass pass = Pass::fwd;            // the pass the Costs and Timings views show
  std::string our_kernel;           // the flash kernel of ours the views show; empty: the first loaded (our_kernel.hpp)
  CpStrategy cp_strategy = CpStrategy::zigzag;  // the Context parallel view's strategy and number of ranks
  int cp_ranks = 4;
  bool chain_details = false;  // the Training step's chain shows the links marked as steps on the way too
  int cp_documents_shown = 0;  // the first so many documents fill its picture; 0: all

  std::array<MaskViewport, 4> mask_viewports{};    // per implementation
  std::array<MaskPlacement, 4> mask_placements{};  // per implementation, written by the Masks view
  bool masks_linked = true;                        // zoom and pan all pictures together
  int mask_focus = -1;                             // one implementation drawn alone and large; -1 = all four
  ResultsState results;
  std::shared_ptr<const TimingsData> timings;  // derived from `results` and the view's choices, made again on change
  LiveRun live_run;                            // the Timings view's run of this scenario on a local GPU
  WalkthroughState walkthrough;
  std::vector<ScenarioEntry> shipped_scenarios;  // the names in scenarios/, read at start and on "refresh"
  // The scenario whose results rows describe `scenario` (measured_scenario.hpp), for scenario_version.
  std::optional<std::string> measured_as;
  std::uint64_t measured_as_version = ~std::uint64_t{0};
  std::uint64_t measured_as_results = 0;  // the results it was found among (ResultsState::version)
  std::string length_list_edit;           // the Scenario view's lengths text while it is being edited
  std::string save_path;                  // the Scenario view's "save as" field
  std::string save_message;               // where the last save went, or why it failed

  std::uint64_t scenario_version = 0;  // new with every edit, unique in the process (see scenario_edits.hpp)
  // Interactive: rebuild the model on a worker thread and keep drawing the last one
  // meanwhile, so dragging a slider over a large scenario never stalls a frame.
  // Off (headless, tests): model() always returns the current scenario's model.
  bool build_model_in_background = false;

  // The model of the current scenario and tile, rebuilt when scenario_version
  // moved; in the background mode, possibly the previous one while it is rebuilt.
  const ScenarioModel& model();
  bool model_is_current() const { return model_ && model_->version == scenario_version; }
  // Something moves without input (the walkthrough plays, a model or a live run is being
  // made): the window keeps drawing frames instead of waiting for input.
  bool animating() const { return walkthrough.playing || !model_is_current() || live_run.running(); }

 private:
  std::shared_ptr<const ScenarioModel> model_;
  std::future<ScenarioModel> next_model_;  // the background build in flight, if any
};

// A state on the named (or default) scenario; shipped results are read from `results_folder`.
// Throws InputError when the scenario cannot be read.
AppState make_app_state(std::string_view scenario_name_or_path, const std::string& results_folder);

}  // namespace attnlab::gui
