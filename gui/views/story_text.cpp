#include "gui/views/story_text.hpp"

#include <algorithm>
#include <functional>

#include "analysis/number_format.hpp"
#include "analysis/source_ratios.hpp"
#include "analysis/step_chain.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/attention_shares.hpp"
#include "gui/views/byte_floor.hpp"
#include "gui/views/step_figures.hpp"

namespace attnlab::gui {

namespace {

std::string percent_or_not(const std::optional<double>& x) { return x ? format_percent(*x) : "not measured"; }

std::string the_8x(AppState& state) {
  const ScenarioModel& m = state.model();
  const ImplementationCost &packed = m.costs[Implementation::packed], &varlen = m.costs[Implementation::varlen];
  return "Sixty-four documents of 512 tokens, packed as a training loader packs them into rows of " +
         std::to_string(m.scenario.row_len) +
         ": each row is one causal triangle over its documents, so a token "
         "attends to every earlier document of its row too. Varlen keeps each document to itself. Cell by cell, "
         "packed's mask lets through " +
         format_ratio(packed.attended_vs_varlen) + " the cells of varlen's (" +
         format_count(double(packed.scores_attended())) + " against " + format_count(double(varlen.scores_attended())) +
         "): the article's 8x. The framed picture is packed's rows; compare varlen's thin diagonal beside it.";
}

std::string the_4x(AppState& state) {
  const Scenario& s = state.model().scenario;
  const ArticleCounts c = article_counts(s.doc_lengths, s.row_len);
  const ImplementationCost& packed = state.model().costs[Implementation::packed];
  return "The article's batch packs the same documents into rows of " + std::to_string(s.row_len) +
         ". Its 8x sets the rows' full squares (" + format_count(double(c.rows_full_squares)) +
         " scores per head; the article's \"" + article_millions(double(c.rows_full_squares)) +
         "\" counts millions of 2^20) against the documents' half squares (" +
         format_count(double(c.docs_full_squares) / 2) + " per head): " + format_ratio(c.article_ratio()) +
         ". Counted the same way on both sides it is " + format_ratio(c.same_counting_ratio()) +
         ", and cell by cell under the causal mask " + format_ratio(packed.attended_vs_varlen) +
         " (the pictures): the first box of the framed chain. Shorter rows waste less.";
}

std::string bleed(AppState& state) {
  const ImplementationCost& packed = state.model().costs[Implementation::packed];
  const double share =
      double(packed.scores[CellKind::bleed]) / double(std::max<std::int64_t>(1, packed.scores_computed()));
  const int cells = int(story_steps()[state.story_step].mask_cells);
  return "Zoomed in on the first " + format_integer(cells) + " tokens of the first packed row of " +
         format_integer(state.model().scenario.row_len) +
         ": the red cells are bleed, a token of one document attending to an earlier "
         "document of the same packed row. " +
         format_count(double(packed.scores[CellKind::bleed])) + " of packed's " +
         format_count(double(packed.scores_computed())) + " scores (" + format_percent(share) +
         ") are bleed: work that is wasted, and worse, it changes each token's output unless a document mask "
         "removes it. Varlen has none.";
}

// "the 128x128 tiles of wgmma-sm90 (ours here)", or the tile alone where no kernel of ours is loaded.
std::string kernel_tiles(const OurKernel& k, TileShape tile) {
  return "the " + tile_name(tile) + " tiles" + (k.name.empty() ? "" : " of " + k.name);
}

std::string tiles(AppState& state) {
  const ScenarioModel& m = state.model();
  const ImplementationCost& packed = m.costs[Implementation::packed];
  std::string others;
  for (const OurKernel& k : other_kernels(state))
    if (k.tile)
      others += "; " + format_ratio(m.costs_at(*k.tile)[Implementation::packed].computed_vs_varlen) + " in " +
                kernel_tiles(k, *k.tile);
  return "A flash kernel computes whole tiles, not cells: a tile on the diagonal computes its masked half too, and "
         "short documents have many diagonal tiles. So the cells' " +
         format_ratio(packed.attended_vs_varlen) + " shrinks to " + format_ratio(packed.computed_vs_varlen) + " in " +
         kernel_tiles(shown_kernel(state), m.tile) + " (ours here" + others +
         "): the framed chain's second box, then each kernel's measured time.";
}

std::string window(AppState& state) {
  const ScenarioModel& m = state.model();
  const ImplementationCost& packed = m.costs[Implementation::packed];
  return "A sliding window of " + std::to_string(m.scenario.window.left) +
         " keys (nanochat's short layers) bounds what every token sees, packed or not: packed's long rows shrink to "
         "a band, and the key tiles wholly outside it are never visited. Packed now computes " +
         format_ratio(packed.computed_vs_varlen) + " varlen's scores (" + format_ratio(packed.attended_vs_varlen) +
         " of the cells): the window already took most of what varlen would save.";
}

std::string measured(AppState& state) {
  const ScenarioModel& m = state.model();
  const std::optional<Configuration> c = measured_configuration(state, m, Pass::fwd);
  if (!c) return "No measured runs of this scenario are loaded.";
  std::vector<std::pair<std::string, double>> kept;  // each source named and its packed / varlen
  std::string text = "The same scenario on an H100, each source's packed time over its own varlen time (framed): ";
  for (const SourceRatios& r : state.results.ratios(*c, false)) {
    if (r.family->name != ours_family && r.family->name != fa2_family) continue;
    const auto x = r.vs_varlen(Implementation::packed);
    text += std::string(kept.empty() && text.back() == ' ' ? "" : "; ") + r.label() + " " +
            (x ? format_ratio(*x) : "not measured");
    if (x) kept.emplace_back(r.label(), *x);
  }
  text += ". The scores said " + format_ratio(m.costs[Implementation::packed].computed_vs_varlen) + " in " +
          tile_name(m.tile) + " tiles";
  if (kept.size() > 1) {
    const auto [most, least] =
        std::minmax_element(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    text += "; of the sources here " + most->first + " keeps the most of it (" + format_ratio(most->second) + "), " +
            least->first + " the least (" + format_ratio(least->second) + ")";
  }
  return text +
         ". Speed alone does not order them: the next step sets each time against its own floor, and how far a "
         "source's packed and varlen times sit above theirs is what makes its ratio.";
}

std::string memory_bound(AppState& state) {
  const LoadedResults& results = state.results.loaded();
  if (!results.ceilings) return "No ceilings.toml is loaded: the roofs are not measured here.";
  const ScenarioModel& m = state.model();
  const std::vector<ByteFloor> floors = byte_floors(m, *results.ceilings);
  const ByteFloor &packed = floors[0], &varlen = floors[1];
  const auto bound = [](const ByteFloor& f) {
    return std::string(f.floor.memory_bound() ? "memory-bound" : "compute-bound") + " (" +
           format_count(f.floor.flops_per_byte) + " FLOPs per byte), at least " + format_us(f.floor.us());
  };
  std::string text = "Two perfect kernels in " + tile_name(m.tile) + " tiles at the measured roofs (ridge at " +
                     format_count(results.ceilings->ridge()) + " FLOPs per byte): varlen's short documents are " +
                     bound(varlen) + ", packed is " + bound(packed) + ". Their floors are " +
                     format_ratio(packed.floor.us() / varlen.floor.us()) +
                     " apart, a ratio of two lower bounds, not of times: a source's measured ratio is it times how far "
                     "its packed time sits above its floor, over how far its varlen time does (framed, each source "
                     "at its own tile)";
  const std::optional<Configuration> c = measured_configuration(state, m, Pass::fwd);
  const std::vector<SourceFloors> per_source =
      c ? source_floors(m, state.results.ratios(*c, false), *results.ceilings) : std::vector<SourceFloors>{};
  std::string named;
  for (const SourceFloors& f : per_source)
    if (f.source.rfind(ours_family, 0) == 0 || f.source == fa2_family)
      named += (named.empty() ? "" : "; ") + f.source + " varlen " + format_ratio(f.varlen_above()) + ", packed " +
               format_ratio(f.packed_above());
  return text + (named.empty() ? "." : ": " + named + ".");
}

std::string shares(AppState& state) {
  const StepFigures f = step_figures(state);
  const std::vector<AttentionShare> all = attention_shares(f);
  const auto [least, most] = std::minmax_element(
      all.begin(), all.end(), [](const AttentionShare& a, const AttentionShare& b) { return a.share < b.share; });
  const StepCost& packed = f.step[Implementation::packed];
  return "nanochat's d24 model over the same 64 documents: 24 layers, three of four with a window of 512. Attention "
         "is " +
         format_percent(packed.attention_share_full_squares()) +
         " of packed's step as nanochat counts FLOPs (full squares of each window) and " +
         format_percent(packed.attention_share_computed()) + " as computed (causal, tiled). The GUI states it " +
         count_of(std::ssize(all), "way") + ", from " + format_percent(least->share) + " (" + least->of + ", " +
         least->layout + ", " + least->source + ") to " + format_percent(most->share) + " (" + most->of + ", " +
         most->layout + ", " + most->source +
         "): the framed table says which is which. Whatever varlen saves, it saves only of this share.";
}

std::string measured_step(AppState& state) {
  const StepFigures f = step_figures(state);
  std::string measured;
  for (const MeasuredStepPair& p : f.measured)
    if (const auto saving = p.saving())
      measured += (measured.empty() ? "" : "; ") + format_percent(*saving) + " (" + p.setting() + ")";
  if (measured.empty())
    return "The measured step, a PyTorch training step of this model with packed rows against varlen, is not "
           "measured here: no results row of a whole step of these documents is loaded, so the chain has no "
           "measured bar for it. The links above it are predictions: the matrix products priced at measured GEMMs plus "
           "each "
           "layer's attention as measured on the runs that computed its cells, never a figure of another scenario.";
  return "A PyTorch training step of this model, the same tokens as packed rows and as varlen documents, timed "
         "whole: varlen saves " +
         measured +
         ". The framed bars are the measured savings; \"the steps on the way too\" adds the profiler's parts: how much "
         "of the step attention is, and what each part saved.";
}

std::string saving(AppState& state) {
  const StepFigures f = step_figures(state);
  const StepTimePrediction& ours = f.times[int(KernelFamily::attnlab)];
  const StepTimePrediction& fa2 = f.times[int(KernelFamily::flash_attention_2)];
  return "The article measured a whole nanochat d24 run " + format_percent(article_step_saving) +
         " shorter with varlen. From FLOPs the step saves " + format_percent(f.step.saving_full_squares()) +
         " as nanochat counts them (" + format_percent(f.step.saving_computed()) +
         " as computed); from measured attention times, " + percent_or_not(ours.saving_step()) + " with " +
         ours.label() + " and " + percent_or_not(fa2.saving_step()) +
         " with FA2; with the rest of the step (elementwise work, loss, optimizer) priced at its bytes, " +
         percent_or_not(ours.saving_step_with_rest()) + " and " + percent_or_not(fa2.saving_step_with_rest()) + ". " +
         article_distance(state.scenario, f.measured)
             .value_or(
                 "A whole run also loads data, syncs and evaluates, which varlen does not speed up: the chain ends at "
                 "the article's figure.");
}

const std::array<std::function<std::string(AppState&)>, story_step_count> paragraphs = {
    the_8x, the_4x, bleed, tiles, window, measured, memory_bound, shares, measured_step, saving};

}  // namespace

std::string story_paragraph(AppState& state, int step) {
  if (step < 0 || step >= story_step_count) return {};
  if (!state.model().ok()) return "The scenario cannot be laid out: " + state.model().error;
  return paragraphs[step](state);
}

}  // namespace attnlab::gui
