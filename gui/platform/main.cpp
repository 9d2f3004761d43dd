// attnlab-gui: the story, then the scenario, masks, costs, timings, flash walkthrough and training step views,
// interactive or rendered headless to a PNG.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "core/io/atomic_file.hpp"
#include "core/io/input_error.hpp"
#include "core/io/number_flags.hpp"
#include "core/io/program_exit.hpp"
#include "gui/app/app_state.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/platform/command_line.hpp"
#include "gui/platform/gui_window.hpp"
#include "gui/platform/window_size.hpp"
#include "gui/views/view_list.hpp"

int main(int argc, char** argv) {
  using namespace attnlab::gui;
  CLI::App app{"attnlab-gui: masks, costs, timings and the flash walkthrough for a scenario"};
  // Numbers are taken as text and read by one strict parser (core/io/number_flags.hpp): CLI11 would take
  // "0x10", "010" as octal, "nan" and "inf".
  std::string screenshot, view_arg, scenario_arg, size_arg = "1280x800", story_step_arg, text_scale_arg, mask_cells_arg;
  std::string results_folder = attnlab::default_results_folder().string();
  std::string mouse_arg, pass_arg;
  app.add_option("--screenshot", screenshot, "render --view to this PNG file without a visible window, then exit");
  app.add_option("--view", view_arg,
                 "the view to show: " + view_names_text() + " (default: the story, or masks with --scenario)");
  app.add_option("--story-step", story_step_arg,
                 "the story's step to show, from 1 to " + std::to_string(story_step_count) + " (the story's view)");
  app.add_option("--scenario", scenario_arg, "a shipped scenario's name or a path to a .toml file (not the story's)");
  app.add_option("--size", size_arg, "window or picture size, WIDTHxHEIGHT");
  app.add_option("--results", results_folder,
                 "folder of results CSVs to show (default: $ATTNLAB_RESULTS, else the shipped H100 results)");
  app.add_option("--text-scale", text_scale_arg, "text size, 1 = default; 1.5-2 for a projector, from 0.75 to 3");
  app.add_option("--mask-cells", mask_cells_arg,
                 "Masks and Scenario views: start on the first N x N cells of each picture (default: all)");
  app.add_option("--pass", pass_arg, "Costs and Timings: the pass they start on, fwd or bwd");
  app.add_option("--mouse", mouse_arg, "with --screenshot: rest the mouse at X,Y (shows the tooltip there)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code() == 0 ? app.exit(e) : attnlab::refuse_arguments("attnlab-gui", e.what());
  }
  const auto given = [&](const char* flag) { return app.count(flag) > 0; };
  return attnlab::run_program("attnlab-gui", [&] {
    if (given("--screenshot") && screenshot.empty())
      throw attnlab::InputError("--screenshot: expected the path of a PNG file to write, got \"\"");
    const int story_step = given("--story-step")
                               ? int(attnlab::parse_integer_flag(story_step_arg, "--story-step", 1, story_step_count))
                               : 1;
    const float text_scale =
        given("--text-scale") ? float(attnlab::parse_real_flag(text_scale_arg, "--text-scale", 0.75, 3.0)) : 1.0f;
    const std::optional<int> mask_cells = given("--mask-cells")
                                              ? std::optional(int(attnlab::parse_integer_flag(
                                                    mask_cells_arg, "--mask-cells", 1, max_gui_layout_positions)))
                                              : std::nullopt;
    if (view_arg.empty()) view_arg = scenario_arg.empty() || given("--story-step") ? "story" : "masks";
    const auto view = parse_view(view_arg);
    if (!view) throw attnlab::InputError("--view: expected " + view_names_text() + ", got \"" + view_arg + "\"");
    check_flags_fit_view(*view, FlagsGiven{given("--story-step"), given("--scenario"), given("--mask-cells"),
                                           given("--pass"), given("--mouse"), !screenshot.empty()});
    if (given("--pass") && pass_arg != "fwd" && pass_arg != "bwd")
      throw attnlab::InputError("--pass: expected fwd or bwd, got \"" + attnlab::printable(pass_arg, 40) + "\"");
    if (!screenshot.empty()) attnlab::check_replaceable_file(screenshot, "PNG");  // before the window opens
    std::error_code ec;
    if (!std::filesystem::is_directory(results_folder, ec))
      throw attnlab::InputError("--results: " + attnlab::printable(results_folder, 4096) +
                                ": not a folder of results CSVs");
    const WindowSize size = parse_window_size(size_arg);
    const std::optional<ScreenPoint> mouse =
        mouse_arg.empty() ? std::nullopt : std::optional(parse_screen_point(mouse_arg));
    AppState state = start_state({*view, story_step, scenario_arg, text_scale, mask_cells,
                                  pass_arg == "bwd" ? attnlab::Pass::bwd : attnlab::Pass::fwd},
                                 results_folder);
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
