// ReconnectBackoff: reconnect.backoff.ms doubling per consecutive failure,
// capped at reconnect.backoff.max.ms, jitter within its bounds, reset on
// success.
#include "client/reconnect_backoff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace spool::client {
namespace {

TEST(ReconnectBackoff, DoublesUpToTheMaxAndResetsOnSuccess) {
  ReconnectBackoff b(50, 1000, 0.0, 1);
  EXPECT_EQ(b.nominal_ms(), 0);
  const int64_t want[] = {50, 100, 200, 400, 800, 1000, 1000};
  for (int64_t w : want) EXPECT_EQ(b.on_failure(), w);
  EXPECT_EQ(b.failures(), 7);
  b.on_success();
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(b.on_failure(), 50);
}

TEST(ReconnectBackoff, MaxBelowBaseActsAsBaseAndZeroBaseNeverWaits) {
  ReconnectBackoff b(300, 100, 0.0, 1);
  EXPECT_EQ(b.on_failure(), 300);
  EXPECT_EQ(b.on_failure(), 300);
  ReconnectBackoff z(0, 1000, 0.2, 1);
  EXPECT_EQ(z.on_failure(), 0);
  EXPECT_EQ(z.on_failure(), 0);
}

TEST(ReconnectBackoff, JitterStaysWithinTwentyPercentAndUnderTheMax) {
  const uint64_t seed = 12345;
  std::printf("ReconnectBackoff jitter seed %llu\n", static_cast<unsigned long long>(seed));
  ReconnectBackoff b(100, 1000, 0.2, seed);
  bool varied = false;
  for (int i = 0; i < 200; ++i) {
    if (i % 6 == 0) b.on_success();
    const int64_t w = b.on_failure();
    const int64_t nominal = b.nominal_ms();
    EXPECT_GE(w, nominal * 8 / 10) << i;
    EXPECT_LE(w, std::min<int64_t>(1000, nominal * 12 / 10)) << i;
    varied |= w != nominal;
  }
  EXPECT_TRUE(varied);
}

}  // namespace
}  // namespace spool::client
