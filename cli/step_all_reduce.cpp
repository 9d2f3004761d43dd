#include "cli/step_all_reduce.hpp"

#include <cstdio>

#include "analysis/number_format.hpp"
#include "cli/json.hpp"
#include "cli/table.hpp"
#include "core/io/shortest_number.hpp"

namespace attnlab::cli {

namespace {

// Bytes as the CLI prints them (powers of 1024), and a rate in the same unit.
std::string per_second(double bytes_per_second) { return format_bytes(bytes_per_second) + "/s"; }

// "4 GPUs, AdamW, all-reduce after bwd, FA2, packed": the row, as the measured table names its pair.
std::string row_name(const MeasuredAllReduce& m) { return m.pair->setting() + ", " + implementation_name(m.layout); }

}  // namespace

void print_all_reduce_summary(const AllReduceEstimate& e, std::size_t columns) {
  const RingAllReduce& ring = e.article;
  std::string text = std::to_string(ring.gpus) + " GPUs, estimated: " + format_bytes(ring.bytes_per_gpu()) + "/GPU, " +
                     std::to_string(ring.steps()) + " ring steps";
  if (e.basis)
    text += ", " + ms_figure(*e.article_us()) + " ms at " + per_second(e.basis->bus_bandwidth()) + " (" +
            row_name(*e.basis) + ")";
  else
    text += "; no all-reduce timed on fewer GPUs to price them at";
  std::fputs(wrapped(text, columns).c_str(), stdout);
}

void print_all_reduce_table(const AllReduceEstimate& e, const ModelShape& model, std::size_t columns) {
  const std::int64_t embedding = std::int64_t(model.vocab) * model.width;
  std::string text = "The gradients' all-reduce: " + format_bytes(e.gradient_bytes) + " of gradients on each GPU (" +
                     format_integer(matrix_params(model)) + " fp32 matrix parameters, " + format_integer(embedding) +
                     " bf16 embedding ones). A ring of N GPUs sends, and receives, 2(N-1)/N of them per GPU in " +
                     "2(N-1) steps; its bus bandwidth is those bytes over the measured communication time. The " +
                     std::to_string(e.article.gpus) + "-GPU row is an estimate, not a measurement: ";
  text += e.basis ? "its bytes at the bus bandwidth of " + row_name(*e.basis) + ": the most GPUs measured below " +
                        std::to_string(e.article.gpus) + ", and of those an all-reduce after the backward where one " +
                        "ran (alone on the GPUs, its kernels' time is the transfer's)."
                  : "no all-reduce on fewer GPUs was timed to price it.";
  std::printf("\n%s", wrapped(text, columns).c_str());
  TextTable table({"all-reduce of the gradients", "GPUs", "sent per GPU", "ring steps", "bus bandwidth", "comm., ms",
                   "exposed, ms"});
  for (const MeasuredAllReduce& m : e.measured) {
    const std::optional<double> exposed = m.row().communication_exposed_us;
    table.add_row({row_name(m), std::to_string(m.ring.gpus), format_bytes(m.ring.bytes_per_gpu()),
                   std::to_string(m.ring.steps()), per_second(m.bus_bandwidth()), ms_figure(m.communication_us),
                   exposed ? ms_figure(*exposed) : "not profiled"});
  }
  const RingAllReduce& ring = e.article;
  table.add_row({std::to_string(ring.gpus) + " GPUs, estimated", std::to_string(ring.gpus),
                 format_bytes(ring.bytes_per_gpu()), std::to_string(ring.steps()),
                 e.basis ? per_second(e.basis->bus_bandwidth()) : "-", e.basis ? ms_figure(*e.article_us()) : "-",
                 "not measured"});
  std::fputs(table.render().c_str(), stdout);
}

std::string all_reduce_json(const std::optional<AllReduceEstimate>& e) {
  if (!e) return "null";
  const auto number = [](std::optional<double> x) { return x ? shortest_text(*x) : std::string("null"); };
  const auto ring = [](const RingAllReduce& r) {
    return "\"gpus\":" + std::to_string(r.gpus) + ",\"bytes_per_gpu\":" + shortest_text(r.bytes_per_gpu()) +
           ",\"ring_steps\":" + std::to_string(r.steps());
  };
  const auto row = [](const MeasuredAllReduce& m) {
    return "{\"setting\":" + json_string(m.pair->setting()) +
           ",\"layout\":" + json_string(implementation_name(m.layout)) + "}";
  };
  const auto measured = [&](const MeasuredAllReduce& m) {
    return "{\"row\":" + row(m) + "," + ring(m.ring) + ",\"bus_bytes_per_s\":" + shortest_text(m.bus_bandwidth()) +
           ",\"communication_us\":" + shortest_text(m.communication_us) +
           ",\"communication_exposed_us\":" + number(m.row().communication_exposed_us) + "}";
  };
  return "{\"gradient_bytes\":" + shortest_text(e->gradient_bytes) +
         ",\"measured\":" + json_array(e->measured, measured) + ",\"estimate\":{" + ring(e->article) +
         ",\"bus_bytes_per_s\":" + number(e->basis ? std::optional(e->basis->bus_bandwidth()) : std::nullopt) +
         ",\"communication_us\":" + number(e->article_us()) + ",\"from\":" + (e->basis ? row(*e->basis) : "null") +
         "}}";
}

}  // namespace attnlab::cli
