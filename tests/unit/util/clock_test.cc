// Clock: ManualClock's two scales move exactly as told; SystemClock's
// monotonic scale never goes back and its wall scale is Unix milliseconds.
#include "util/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

namespace spool {
namespace {

TEST(ManualClockTest, OneStartMovesBothScalesTogether) {
  ManualClock c(1000);
  EXPECT_EQ(c.monotonic_ms(), 1000);
  EXPECT_EQ(c.wall_ms(), 1000);
  EXPECT_EQ(c.now_ms(), 1000);
  c.advance(250);
  EXPECT_EQ(c.monotonic_ms(), 1250);
  EXPECT_EQ(c.wall_ms(), 1250);
}

TEST(ManualClockTest, SeparateStartsKeepTheirOffset) {
  ManualClock c(0, 1'700'000'000'000);
  c.advance(5);
  EXPECT_EQ(c.monotonic_ms(), 5);
  EXPECT_EQ(c.wall_ms(), 1'700'000'000'005);
  c.set(100);  // moves the wall scale by the same 95 ms
  EXPECT_EQ(c.monotonic_ms(), 100);
  EXPECT_EQ(c.wall_ms(), 1'700'000'000'100);
  c.set(40);  // backwards too (timer tests rewind)
  EXPECT_EQ(c.monotonic_ms(), 40);
  EXPECT_EQ(c.wall_ms(), 1'700'000'000'040);
}

TEST(ManualClockTest, WallJumpLeavesMonotonicAlone) {
  ManualClock c(10, 20);
  c.set_wall(5);  // an operator set the date back
  EXPECT_EQ(c.wall_ms(), 5);
  EXPECT_EQ(c.monotonic_ms(), 10);
}

TEST(SystemClockTest, ScalesAreTheRealClocks) {
  const auto& c = system_clock();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c.get(), system_clock().get());  // one process-wide instance
  const int64_t m1 = c->monotonic_ms();
  const int64_t w = c->wall_ms();
  const int64_t m2 = c->monotonic_ms();
  EXPECT_LE(m1, m2);
  const int64_t sys = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_LE(w, sys);
  EXPECT_GT(w, sys - 1000);
  EXPECT_GT(w, 1'600'000'000'000);  // Unix epoch milliseconds, not an arbitrary epoch
  EXPECT_LE(wall_clock_ms() - w, 1000);
}

TEST(SystemClockTest, NullOptionMeansTheRealClock) {
  EXPECT_EQ(clock_or_system(nullptr).get(), system_clock().get());
  auto manual = std::make_shared<ManualClock>(7);
  EXPECT_EQ(clock_or_system(manual).get(), manual.get());
}

}  // namespace
}  // namespace spool
