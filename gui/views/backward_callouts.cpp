#include "gui/views/backward_callouts.hpp"

#include "analysis/number_format.hpp"

namespace attnlab::gui {

std::string backward_memory_callout(const ScenarioModel& model) {
  const BackwardCost &naive = model.backward_of(Implementation::naive),
                     &flash = model.backward_of(Implementation::varlen);
  return "For the backward, naive keeps " + format_bytes(double(naive.extra_memory_bytes)) +
         " beyond the inputs, O and the gradients: the forward's S and P, and the dP and dS it builds, each as large "
         "as the scores it computes (" +
         format_count(double(naive.cells)) +
         " over all heads: a padded row's length squared, per row and head). Flash on varlen keeps " +
         format_bytes(double(flash.extra_memory_bytes)) +
         ": the forward's log-sum-exp, the row sums Delta = rowsum(dO*O) and an fp32 dQ accumulator; it recomputes P "
         "tile by tile. "
         "Naive keeps " +
         format_ratio(double(naive.extra_memory_bytes) / double(flash.extra_memory_bytes)) + " as much.";
}

std::string backward_flops_text(const ScenarioModel& model) {
  const BackwardCost &naive = model.backward_of(Implementation::naive),
                     &flash = model.backward_of(Implementation::varlen);
  return "FLOPs: the flash backward runs " + std::to_string(flash.gemms) +
         " matrix products per score (QK^T again to recompute P from the log-sum-exp, then dV, dP, dQ, dK; dQ summed "
         "by fp32 atomics, as our kernel does) against the forward's 2 (QK^T, PV): " +
         format_ratio(flash.flops_vs_forward) + " the forward's FLOPs, with " +
         format_count(double(flash.scores_recomputed)) +
         " scores recomputed on varlen. Naive reads back the P it kept: " + std::to_string(naive.gemms) +
         " products, " + format_ratio(naive.flops_vs_forward) + " its forward, nothing recomputed.";
}

}  // namespace attnlab::gui
