// Why the measured ratio is smaller: at the shipped H100 roofs the article's varlen is
// memory-bound (its FLOPs per byte under the ridge) and packed compute-bound, so two
// perfect kernels differ by less than the scores do.
#include <gtest/gtest.h>

#include "core/scenario/scenario_file.hpp"
#include "gui/views/byte_floor.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

TEST(ByteFloor, ShortDocumentsAreMemoryBoundPackedIsNot) {
  const LoadedResults results = shipped_results();
  ASSERT_TRUE(results.ceilings);
  const ScenarioModel model = build_model(load_scenario("uniform-64x512"), {64, 64});
  const std::vector<ByteFloor> floors = byte_floors(model, *results.ceilings);
  ASSERT_EQ(floors.size(), 2u);
  const ByteFloor &packed = floors[0], &varlen = floors[1];
  EXPECT_TRUE(varlen.floor.memory_bound());
  EXPECT_FALSE(packed.floor.memory_bound());
  EXPECT_LT(varlen.floor.flops_per_byte, results.ceilings->ridge());
  // Q, K, V and O of 32,768 tokens, 16 heads of 128, bf16: 4 x 32768 x 16 x 128 x 2 bytes.
  EXPECT_EQ(varlen.bytes, 4.0 * 32768 * 16 * 128 * 2);
  EXPECT_DOUBLE_EQ(varlen.floor.bytes_us, varlen.bytes / (results.ceilings->tbps * 1e12) * 1e6);
  EXPECT_DOUBLE_EQ(packed.floor.flops_us, packed.flops / (results.ceilings->tflops * 1e12) * 1e6);
  const double perfect = packed.floor.us() / varlen.floor.us();
  EXPECT_GT(perfect, 1.0);
  EXPECT_LT(perfect, model.costs[Implementation::packed].computed_vs_varlen);
  EXPECT_NE(byte_floor_text(model, *results.ceilings).find("memory-bound"), std::string::npos);
}

}  // namespace
}  // namespace attnlab::gui
