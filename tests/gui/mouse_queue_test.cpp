// A press and its release that arrive between two frames reach Dear ImGui as two
// frames, down then up: the click is not lost.
#include <gtest/gtest.h>

#include "gui/platform/mouse_queue.hpp"

namespace attnlab::gui {
namespace {

TEST(MouseButtonQueue, APressAndReleaseInOneFrameBecomeTwoFrames) {
  MouseButtonQueue queue;
  queue.push(0, true, {10, 20});
  queue.push(0, false, {10, 20});
  EXPECT_TRUE(queue.pending());
  const MouseButtonQueue::Frame first = queue.next_frame();
  EXPECT_TRUE(first.down[0]);
  ASSERT_TRUE(first.at);
  EXPECT_EQ(first.at->first, 10);
  EXPECT_EQ(first.at->second, 20);
  const MouseButtonQueue::Frame second = queue.next_frame();
  EXPECT_FALSE(second.down[0]);
  EXPECT_FALSE(queue.pending());
  const MouseButtonQueue::Frame idle = queue.next_frame();
  EXPECT_FALSE(idle.down[0]);
  EXPECT_FALSE(idle.at);
}

TEST(MouseButtonQueue, ButtonsChangeTogetherWhereEachChangesOnce) {
  MouseButtonQueue queue;
  queue.push(0, true, {1, 1});
  queue.push(1, true, {2, 2});
  queue.push(0, false, {3, 3});
  queue.push(7, true, {4, 4});  // no such button: ignored
  const MouseButtonQueue::Frame first = queue.next_frame();
  EXPECT_TRUE(first.down[0]);
  EXPECT_TRUE(first.down[1]);
  EXPECT_EQ(first.at->first, 1);
  const MouseButtonQueue::Frame second = queue.next_frame();
  EXPECT_FALSE(second.down[0]);
  EXPECT_TRUE(second.down[1]);
  EXPECT_FALSE(queue.pending());
}

}  // namespace
}  // namespace attnlab::gui
