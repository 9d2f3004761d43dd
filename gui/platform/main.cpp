// attnlab-gui: the story, then the scenario, masks, costs, timings, flash walkthrough and training step views,
// interactive or rendered headless to a PNG.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "core/atomic_file.hpp"
#include "core/input_error.hpp"
#include "core/program_exit.hpp"
#include "gui/app/app_state.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/platform/gui_window.hpp"
#include "gui/platform/window_size.hpp"
#include "gui/views/view_list.hpp"

int main(int argc, char** argv) {
  using namespace attnlab::gui;
  CLI::App app{"attnlab-gui: masks, costs, timings and the flash walkthrough for a scenario"};
  std::string screenshot, view_arg, scenario_arg, size_arg = "1280x800";
  int story_step = 1;
  std::string results_folder = attnlab::default_results_folder().string();
  float text_scale = 1.0f;
  double mask_cells = 0;
  std::string mouse_arg, pass_arg = "fwd";
  app.add_option("--screenshot", screenshot, "render --view to this PNG file without a visible window, then exit");
  app.add_option("--view", view_arg,
                 "the view to show: " + view_names_text() + " (default: the story, or masks with --scenario)");
  app.add_option("--story-step", story_step, "the story's step to show, from 1")
      ->check(CLI::Range(1, story_step_count));
  app.add_option("--scenario", scenario_arg, "a shipped scenario's name or a path to a .toml file");
  app.add_option("--size", size_arg, "window or picture size, WIDTHxHEIGHT");
  app.add_option("--results", results_folder,
                 "folder of results CSVs to show (default: $ATTNLAB_RESULTS, else the shipped H100 results)");
  app.add_option("--text-scale", text_scale, "text size, 1 = default; 1.5-2 for a projector, from 0.75 to 3");
  app.add_option("--mask-cells", mask_cells,
                 "Masks view: start on the first N x N cells of each picture (default: all)")
      ->check(CLI::PositiveNumber);
  app.add_option("--pass", pass_arg, "Costs and Timings: the pass they start on, fwd or bwd");
  app.add_option("--mouse", mouse_arg, "with --screenshot: rest the mouse at X,Y (shows the tooltip there)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code() == 0 ? app.exit(e) : attnlab::refuse_arguments("attnlab-gui", e.what());
  }
  return attnlab::run_program("attnlab-gui", [&] {
    // Checked here: CLI11's range check lets NaN through, and an empty --screenshot would open a window.
    if (!(text_scale >= 0.75f && text_scale <= 3.0f))
      throw attnlab::InputError("--text-scale: expected a number from 0.75 to 3, got " + std::to_string(text_scale));
    if (app.count("--screenshot") > 0 && screenshot.empty())
      throw attnlab::InputError("--screenshot: expected the path of a PNG file to write, got \"\"");
    if (!screenshot.empty()) attnlab::check_replaceable_file(screenshot, "PNG");  // before the window opens
    std::error_code ec;
    if (!std::filesystem::is_directory(results_folder, ec))
      throw attnlab::InputError("--results: " + attnlab::printable(results_folder, 4096) +
                                ": not a folder of results CSVs");
    if (view_arg.empty()) view_arg = scenario_arg.empty() ? "story" : "masks";
    const auto view = parse_view(view_arg);
    if (!view) throw attnlab::InputError("--view: expected " + view_names_text() + ", got \"" + view_arg + "\"");
    if (pass_arg != "fwd" && pass_arg != "bwd")
      throw attnlab::InputError("--pass: expected fwd or bwd, got \"" + pass_arg + "\"");
    const WindowSize size = parse_window_size(size_arg);
    const std::optional<ScreenPoint> mouse =
        mouse_arg.empty() ? std::nullopt : std::optional(parse_screen_point(mouse_arg));
    AppState state = make_app_state(scenario_arg, results_folder);
    state.view = *view;
    if (*view == View::story) open_story_step(state, story_step - 1);
    state.text_scale = text_scale;
    state.pass = pass_arg == "fwd" ? attnlab::Pass::fwd : attnlab::Pass::bwd;
    for (MaskViewport& vp : state.mask_viewports) vp.fit_cells = mask_cells;
    state.build_model_in_background = screenshot.empty();
    GuiWindow window(size.width, size.height, screenshot.empty());
    if (screenshot.empty()) {
      window.run(state);
    } else {
      write_png(window.render_offscreen(state, size.width, size.height, mouse ? 6 : 3, mouse), screenshot);
      std::printf("wrote %s (%s view, %dx%d)\n", screenshot.c_str(), view_name(*view), size.width, size.height);
    }
    return 0;
  });
}
