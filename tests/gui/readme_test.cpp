// gui/README.md kept honest against the tree: every source file of the GUI named in it, every
// file it names there, every screenshot it shows on disk and every one on disk shown, every view
// in its --view list and its F-keys, and the Story's steps counted as the steps are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "gui/app/story_steps.hpp"
#include "gui/views/view_list.hpp"

namespace attnlab::gui {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = ATTNLAB_SOURCE_DIR;

std::string readme() {
  std::ifstream in(source_dir / "gui" / "README.md");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every `span` of the README that names a file: a path or a name ending in an extension, `name.*`
// standing for each of its files; placeholders (`<name>`, `NAME-N.csv`) and patterns are not names.
std::set<std::string> file_names_in(const std::string& text) {
  static const std::regex span("`([a-z0-9_./-]+\\.(cpp|hpp|h|md|sh|csv|toml|txt|png|\\*))`");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), span); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

// The files of the tree, as paths from its root (build folders and hidden ones left out).
std::vector<std::string> tree_files() {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(source_dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.starts_with(".") || name.starts_with("build"))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), source_dir).generic_string());
  }
  return files;
}

// `name` names `path` when it is the path's tail at a folder's boundary; `stem.*` any extension.
bool names(const std::string& name, const std::string& path) {
  std::string tail = path;
  if (name.ends_with(".*")) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
    tail = path.substr(0, dot) + ".*";
  }
  return tail == name || tail.ends_with("/" + name);
}

TEST(GuiReadme, NamesEverySourceFileOfTheGui) {
  const std::set<std::string> named = file_names_in(readme());
  int sources = 0;
  for (const std::string& file : tree_files()) {
    if (!file.starts_with("gui/") || !(file.ends_with(".cpp") || file.ends_with(".hpp"))) continue;
    ++sources;
    EXPECT_TRUE(std::any_of(named.begin(), named.end(), [&](const std::string& n) { return names(n, file); }))
        << file << " is not named in gui/README.md";
  }
  EXPECT_GT(sources, 50);
}

TEST(GuiReadme, EveryFileItNamesExists) {
  const std::vector<std::string> files = tree_files();
  const std::set<std::string> named = file_names_in(readme());
  EXPECT_GT(named.size(), 50u);
  for (const std::string& n : named)
    EXPECT_TRUE(std::any_of(files.begin(), files.end(), [&](const std::string& f) { return names(n, f); }))
        << "gui/README.md names " << n << ", which is not in the tree";
}

// The pictures it shows are on disk, and every picture on disk is shown (tools/screenshots.sh
// renders them all): none missing, none left behind by a view or a step since gone.
TEST(GuiReadme, ShowsEveryScreenshotThereIs) {
  const std::string text = readme();
  static const std::regex image(R"(\]\((screenshots/[a-z0-9-]+\.png)\))");
  std::set<std::string> shown;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), image); it != std::sregex_iterator(); ++it)
    shown.insert((*it)[1]);
  std::set<std::string> on_disk;
  for (const fs::directory_entry& e : fs::directory_iterator(source_dir / "gui" / "screenshots"))
    if (e.path().extension() == ".png") on_disk.insert("screenshots/" + e.path().filename().string());
  EXPECT_EQ(shown, on_disk);
}

// Its --view list holds every view's name, its F-keys run to the last view, and the Story's steps
// run to the last step.
TEST(GuiReadme, ListsEveryViewAndStep) {
  const std::string text = readme();
  for (const ViewEntry& v : view_list)
    EXPECT_NE(text.find("`" + std::string(v.name) + "`"), std::string::npos) << v.name;
  EXPECT_NE(text.find("F1\xE2\x80\x93"
                      "F" +
                      std::to_string(view_list.size())),
            std::string::npos);
  EXPECT_NE(text.find("(1 to " + std::to_string(story_step_count)), std::string::npos);
  EXPECT_NE(text.find("(" + std::to_string(story_step_count) + ") "), std::string::npos);
  EXPECT_EQ(text.find("(" + std::to_string(story_step_count + 1) + ") "), std::string::npos);
}

}  // namespace
}  // namespace attnlab::gui
