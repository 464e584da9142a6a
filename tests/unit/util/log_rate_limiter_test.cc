// LogRateLimiter on a ManualClock: the burst per key and window, the count of
// what was suppressed (reported once, by the next line of that key or by
// take_suppressed), keys independent of each other, idle keys forgotten, and
// the key cap.
#include "util/log_rate_limiter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace spool {
namespace {

struct Fixture {
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(1000);
  LogRateLimiter limiter;
  explicit Fixture(int burst = 3, int64_t interval_ms = 10'000, size_t max_keys = 4096)
      : limiter(LogRateLimiterOptions{burst, interval_ms, max_keys, clock}) {}

  // Lines logged out of n checks of key (and no summary among them).
  int logged(const std::string& key, int n) {
    int out = 0;
    for (int i = 0; i < n; ++i) {
      auto v = limiter.check(key);
      EXPECT_FALSE(v.summary.has_value()) << "line " << i;
      out += v.log ? 1 : 0;
    }
    return out;
  }
};

TEST(LogRateLimiterTest, BurstThenSuppressedUntilTheWindowEnds) {
  Fixture f(3, 10'000);
  EXPECT_EQ(f.logged("10.0.0.1", 20'000), 3);
  f.clock->advance(9'999);
  EXPECT_EQ(f.logged("10.0.0.1", 5), 0);
  EXPECT_TRUE(f.limiter.take_suppressed().empty()) << "the window has not ended";
}

TEST(LogRateLimiterTest, NextLineAfterTheWindowCarriesTheCount) {
  Fixture f(3, 10'000);
  EXPECT_EQ(f.logged("10.0.0.1", 20'000), 3);
  f.clock->advance(10'000);
  auto v = f.limiter.check("10.0.0.1");
  EXPECT_TRUE(v.log);
  ASSERT_TRUE(v.summary.has_value());
  EXPECT_EQ(v.summary->key, "10.0.0.1");
  EXPECT_EQ(v.summary->count, 19'997u);
  EXPECT_EQ(v.summary->window_ms, 10'000);
  EXPECT_EQ(LogRateLimiter::describe(*v.summary),
            "suppressed 19997 similar messages from 10.0.0.1 in the last 10 s");
  // A fresh window: two more lines, then suppression again; nothing left to report.
  EXPECT_EQ(f.logged("10.0.0.1", 10), 2);
  EXPECT_TRUE(f.limiter.take_suppressed().empty());
}

TEST(LogRateLimiterTest, PeriodicTakeReportsAQuietClientOnce) {
  Fixture f(2, 5'000);
  EXPECT_EQ(f.logged("192.0.2.7", 7), 2);
  f.clock->advance(6'000);
  auto s = f.limiter.take_suppressed();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].key, "192.0.2.7");
  EXPECT_EQ(s[0].count, 5u);
  EXPECT_EQ(s[0].window_ms, 6'000);
  // Reported once: neither the next sweep nor the next line repeats it.
  EXPECT_TRUE(f.limiter.take_suppressed().empty());
  auto v = f.limiter.check("192.0.2.7");
  EXPECT_TRUE(v.log);
  EXPECT_FALSE(v.summary.has_value());
}

TEST(LogRateLimiterTest, KeysAreIndependent) {
  Fixture f(2, 5'000);
  EXPECT_EQ(f.logged("a", 100), 2);
  EXPECT_EQ(f.logged("b", 1), 1) << "another address still gets its lines";
  f.clock->advance(5'000);
  auto s = f.limiter.take_suppressed();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].key, "a");
  EXPECT_EQ(s[0].count, 98u);
}

TEST(LogRateLimiterTest, QuietKeysAreForgotten) {
  Fixture f(2, 5'000);
  for (int i = 0; i < 100; ++i) f.limiter.check("client-" + std::to_string(i));
  EXPECT_EQ(f.limiter.tracked(), 100u);
  f.clock->advance(4'999);
  EXPECT_TRUE(f.limiter.take_suppressed().empty());
  EXPECT_EQ(f.limiter.tracked(), 100u) << "windows still open";
  f.clock->advance(1);
  EXPECT_TRUE(f.limiter.take_suppressed().empty());
  EXPECT_EQ(f.limiter.tracked(), 0u);
}

TEST(LogRateLimiterTest, KeysBeyondTheCapShareOneWindow) {
  Fixture f(1, 5'000, 3);
  EXPECT_EQ(f.logged("a", 1) + f.logged("b", 1) + f.logged("c", 1), 3);
  // d, e and f share "*": one line between them.
  EXPECT_EQ(f.logged("d", 1) + f.logged("e", 1) + f.logged("f", 1), 1);
  EXPECT_EQ(f.limiter.tracked(), 4u);
  f.clock->advance(5'000);
  auto s = f.limiter.take_suppressed();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].key, "*");
  EXPECT_EQ(s[0].count, 2u);
}

TEST(LogRateLimiterTest, NonPositiveOptionsActAsOne) {
  Fixture f(0, 0);
  EXPECT_EQ(f.logged("k", 3), 1);
  f.clock->advance(1);
  auto v = f.limiter.check("k");
  EXPECT_TRUE(v.log);
  ASSERT_TRUE(v.summary.has_value());
  EXPECT_EQ(v.summary->count, 2u);
}

}  // namespace
}  // namespace spool
