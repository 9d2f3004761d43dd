// The Context parallel view: the scenario's varlen batch split over N ranks by one strategy of
// core/cost/context_parallel.hpp, its mask coloured by the rank that holds each query, each
// rank's work and the K/V bytes it receives, and beside them the ranks' measured times where
// the loaded results hold a run of this split (analysis/measured_cp.hpp).
#include <imgui.h>

#include <cmath>
#include <memory>
#include <string>

#include "analysis/measured_cp.hpp"
#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/mask_picture/mask_painting.hpp"
#include "gui/views/cp_ranks.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// The model of one (scenario, strategy, ranks, tile) and the measured runs of that split with a
// line each (their model at their own tile), kept until one of them or the results change.
struct CpPicture {
  std::uint64_t version = 0, results_version = 0;
  CpStrategy strategy = CpStrategy::zigzag;
  int ranks = 0;
  TileShape tile;
  CpCost cost;
  std::unique_ptr<CpRanks> rank_of;
  std::vector<MeasuredCpRun> runs;
  std::vector<std::string> run_lines;
};

const CpPicture& cp_picture(const AppState& state, const ScenarioModel& model) {
  static CpPicture picture;
  if (!picture.rank_of || picture.version != model.version || picture.strategy != state.cp_strategy ||
      picture.ranks != state.cp_ranks || picture.tile != model.tile ||
      picture.results_version != state.results.version()) {
    picture.version = model.version;
    picture.results_version = state.results.version();
    picture.strategy = state.cp_strategy;
    picture.ranks = state.cp_ranks;
    picture.tile = model.tile;
    picture.cost = model_context_parallel(model.scenario, state.cp_ranks, state.cp_strategy, model.tile);
    picture.rank_of = std::make_unique<CpRanks>(picture.cost.plan, model.doc_offsets);
    picture.runs = measured_cp_runs(state.results.loaded(), model.scenario.name, picture.ranks, picture.strategy);
    picture.run_lines.clear();
    for (const MeasuredCpRun& run : picture.runs)
      picture.run_lines.push_back(
          measured_cp_summary(run, measured_cp_model_imbalance(model.scenario, picture.strategy, run)));
  }
  return picture;
}

// Rank r of n: hues around the wheel, bright enough on the dark background.
ImU32 rank_color(int rank, int ranks) {
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(std::fmod(float(rank) / float(std::max(1, ranks)) + 0.08f, 1.0f), 0.65f, 0.95f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

void show_controls(AppState& state, int documents) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("strategy", cp_strategy_name(state.cp_strategy))) {
    for (CpStrategy s : all_cp_strategies)
      if (ImGui::Selectable(cp_strategy_name(s), s == state.cp_strategy)) state.cp_strategy = s;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderInt("ranks", &state.cp_ranks, 1, 64, "%d", ImGuiSliderFlags_Logarithmic);
  state.cp_ranks = std::clamp(state.cp_ranks, 1, max_cp_ranks);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  state.cp_documents_shown = std::clamp(state.cp_documents_shown, 0, documents);
  ImGui::SliderInt("documents shown", &state.cp_documents_shown, 0, documents,
                   state.cp_documents_shown == 0 ? "all" : "first %d", ImGuiSliderFlags_Logarithmic);
}

// The varlen mask, each attended cell in the colour of the rank holding its query.
// `documents`: the first so many documents fill the picture; 0: all of them.
void show_rank_picture(const ScenarioModel& model, const CpPicture& p, float side, int documents) {
  const MaskPicture picture(model.layouts->varlen, model.tile);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(side, side));
  const double fit = documents > 0 ? double(picture.row_query_offset(documents)) : 0.0;
  const MaskPlacement placement = resolve_placement(MaskViewport{0, 0, 0, fit}, picture, at, side);
  ImDrawList* clip = ImGui::GetWindowDrawList();
  clip->PushClipRect(at, ImVec2(at.x + side, at.y + side), true);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(at, ImVec2(at.x + side, at.y + side), IM_COL32(20, 20, 26, 255));
  paint_blocks(draw, picture, placement,
               [&](const RegionCounts& c, std::int64_t q, std::int64_t k) -> std::optional<ImU32> {
                 const PaintClass kind = block_class(c);
                 if (kind != PaintClass::useful)
                   return kind == PaintClass::outside ? std::nullopt : std::optional(IM_COL32(55, 55, 65, 255));
                 const std::int64_t mid = q + std::max<std::int64_t>(1, placement.cells_per_bin) / 2;
                 const PictureCell cell = picture.cell_at(std::min(mid, picture.query_extent() - 1), k);
                 const int rank = cell.row < 0 ? -1 : p.rank_of->rank_of(cell.row, cell.q);
                 return rank < 0 ? std::optional(IM_COL32(55, 55, 65, 255)) : std::optional(rank_color(rank, p.ranks));
               });
  clip->PopClipRect();
  draw->AddRect(at, ImVec2(at.x + side, at.y + side), IM_COL32(140, 140, 150, 255));
}

// A rank's cell of a run: its compute, and over NCCL its whole run.
std::string rank_cell(const MeasuredCpRun& run, int rank) {
  const ResultRow& r = *run.ranks[std::size_t(rank)];
  std::string cell = format_us(r.median_us.value_or(0));
  if (r.cp_run_us) cell += " / " + format_us(*r.cp_run_us);
  return cell;
}

void show_rank_table(const CpPicture& p) {
  const std::vector<MeasuredCpRun>& runs = p.runs;
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                    ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
  const float height = std::min(ImGui::GetContentRegionAvail().y * 0.7f,
                                ImGui::GetTextLineHeightWithSpacing() * 1.3f * float(p.ranks + 2));
  const int columns = 8 + std::max(1, int(runs.size()));
  if (!ImGui::BeginTable("ranks", columns, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (const char* title :
       {"rank", "tokens", "useful", "computed", "vs mean", "K/V in, ring", "K/V in, all-gather", "K/V needed"})
    ImGui::TableSetupColumn(title);
  for (const MeasuredCpRun& run : runs) ImGui::TableSetupColumn(measured_cp_title(run).c_str());
  if (runs.empty()) ImGui::TableSetupColumn("time");
  ImGui::TableHeadersRow();
  for (int i = 0; i < p.ranks; ++i) {
    const CpRankCost& r = p.cost.ranks[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float box = ImGui::GetTextLineHeight() * 0.8f;
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + box * 0.15f), ImVec2(at.x + box, at.y + box * 1.15f),
                                              rank_color(i, p.ranks));
    ImGui::Dummy(ImVec2(box, box));
    ImGui::SameLine();
    ImGui::Text("%d", i);
    for (const std::string& cell :
         {format_integer(r.tokens), format_count(double(r.scores_useful())), format_count(double(r.scores_computed())),
          format_ratio(r.computed_vs_mean), format_bytes(double(r.kv_bytes_ring)),
          format_bytes(double(r.kv_bytes_all_gather)), format_bytes(double(r.kv_bytes_needed))}) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cell.c_str());
    }
    for (const MeasuredCpRun& run : runs) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(rank_cell(run, i).c_str());
    }
    if (runs.empty()) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("not measured");
    }
  }
  ImGui::EndTable();
}

// Each run in a line beside the model.
void show_run_lines(const CpPicture& p) {
  for (const std::string& line : p.run_lines) wrapped_text("%s.", line.c_str());
}

}  // namespace

void show_context_parallel_view(AppState& state) {
  if (show_model_error(state)) return;
  const ScenarioModel& model = state.model();
  show_controls(state, int(model.scenario.doc_lengths.size()));
  const CpPicture& p = cp_picture(state, model);
  wrapped_text(
      "%s over %s, %s tiles: each query's rank colours its row of the mask (grey: cells masked or in skipped "
      "tiles). Imbalance (max / mean) %s of useful scores, %s of scores computed; %s of one GPU's "
      "scores computed. K/V received by all ranks: ring %s, all-gather %s, needed %s.",
      cp_strategy_name(p.strategy), count_of(p.ranks, "rank").c_str(), tile_name(p.tile).c_str(),
      format_ratio(p.cost.useful_imbalance).c_str(), format_ratio(p.cost.computed_imbalance).c_str(),
      format_ratio(double(p.cost.total_scores_computed()) / double(p.cost.one_gpu_scores_computed)).c_str(),
      format_bytes(double(p.cost.total(&CpRankCost::kv_bytes_ring))).c_str(),
      format_bytes(double(p.cost.total(&CpRankCost::kv_bytes_all_gather))).c_str(),
      format_bytes(double(p.cost.total(&CpRankCost::kv_bytes_needed))).c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::floor(std::max(64.0f, std::min(avail.x * 0.36f, avail.y)));
  ImGui::BeginGroup();
  show_rank_picture(model, p, side, state.cp_documents_shown);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  show_rank_table(p);
  show_run_lines(p);
  note_text(
      "Each rank holds its queries and their K and V, computes its queries against every key they attend "
      "and receives the K/V it lacks: around a ring (N - 1 steps) or by one all-gather. The rules and "
      "formulas: core/cost/README.md, \"Context parallelism\"; `attnlab cp` prints the same, and `attnlab cp "
      "--run` measures it. A measured column: each rank's compute (its steps, K/V in memory), and on several "
      "GPUs / its whole run with the K/V sent over NCCL. None where the loaded results hold no run of this "
      "scenario, N and strategy (results/h100 and results/h200 hold some).");
  ImGui::EndGroup();
}

}  // namespace attnlab::gui
