// The kernels' problem as the host API checks it before any launch: the softmax scale a
// caller gives (the PyTorch operator's `scale`) is refused in one line naming it, never
// replaced by the default or carried into the kernels as inf or 0.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "kernels/attention.hpp"

namespace attnlab {
namespace {

std::string refusal(double scale) {
  try {
    checked_softmax_scale(scale);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SoftmaxScale, RefusesWhatIsNotAPositiveFiniteScaleInOneLine) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // 1e39 is past fp32, 3e38 is not but scale·log2 e is, 1e-50 rounds to fp32's 0.
  for (double scale : {-1.0, -0.0, 0.0, nan, -nan, inf, -inf, 1e39, 3e38, 1e-50}) {
    const std::string message = refusal(scale);
    SCOPED_TRACE(scale);
    EXPECT_EQ(message.rfind("scale: expected a softmax scale above 0 and at most ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_NE(refusal(-2.5).find("got -2.5"), std::string::npos) << refusal(-2.5);
  EXPECT_NE(refusal(nan).find("got nan"), std::string::npos) << refusal(nan);
}

TEST(SoftmaxScale, KeepsEveryUsableScale) {
  EXPECT_EQ(checked_softmax_scale(0.125), 0.125f);
  EXPECT_EQ(checked_softmax_scale(1e-30), 1e-30f);
  const double largest = std::numeric_limits<float>::max() / std::numbers::log2e_v<float>;
  EXPECT_TRUE(std::isfinite(checked_softmax_scale(largest * 0.999)));
}

TEST(SoftmaxScale, TheProblemRefusesASetScaleAndDefaultsAnUnsetOne) {
  AttentionProblem p;
  p.head_dim = 64;
  p.validate();
  EXPECT_EQ(p.softmax_scale(), 0.125f);
  for (float scale : {-1.0f, 0.0f, std::nanf(""), std::numeric_limits<float>::infinity(), 3e38f}) {
    p.scale = scale;
    EXPECT_THROW(p.validate(), InputError) << scale;
  }
  p.scale = 0.5f;
  p.validate();
  EXPECT_EQ(p.softmax_scale(), 0.5f);
}

}  // namespace
}  // namespace attnlab
