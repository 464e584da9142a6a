// ReplicationQuota: Kafka's windowed rate (padded to samples - 1 windows)
// and the limit read live.
#include "replica/replication_quota.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>

namespace spool::replica {
namespace {

struct Clock {
  int64_t now = 100000;
  std::function<int64_t()> fn() {
    return [this] { return now; };
  }
};

TEST(ReplicationQuota, UnlimitedByDefaultAndAtZero) {
  std::atomic<int64_t> limit{std::numeric_limits<int64_t>::max()};
  Clock c;
  ReplicationQuota q([&] { return limit.load(); }, 11, 1000, c.fn());
  q.record(1 << 30);
  EXPECT_TRUE(q.unlimited());
  EXPECT_FALSE(q.exceeded());
  limit = 0;  // Kafka treats only positive bounds as limits here
  EXPECT_FALSE(q.exceeded());
}

TEST(ReplicationQuota, HoldsTheRateOverTheWindow) {
  std::atomic<int64_t> limit{1000};  // 1000 B/s
  Clock c;
  ReplicationQuota q([&] { return limit.load(); }, 11, 1000, c.fn());
  // A first burst of up to 10 windows' worth passes (the span is padded).
  q.record(9000);
  EXPECT_FALSE(q.exceeded());
  EXPECT_NEAR(q.measured_bytes_per_second(), 900.0, 1.0);
  q.record(2000);
  EXPECT_TRUE(q.exceeded());
  // Sending only while not exceeded, in 100 ms steps of 100 B, for 60 s:
  // the long-run rate is the limit.
  int64_t sent = 0;
  const int64_t start = c.now;
  for (int i = 0; i < 600; ++i) {
    c.now += 100;
    if (!q.exceeded()) {
      q.record(200);
      sent += 200;
    }
  }
  const double rate = static_cast<double>(sent) * 1000.0 / static_cast<double>(c.now - start);
  EXPECT_NEAR(rate, 1000.0, 150.0) << "sent " << sent;
  // The limit is read live.
  limit = 100000;
  EXPECT_FALSE(q.exceeded());
}

TEST(ReplicationQuota, OldWindowsAgeOut) {
  std::atomic<int64_t> limit{1000};
  Clock c;
  ReplicationQuota q([&] { return limit.load(); }, 11, 1000, c.fn());
  q.record(50000);
  EXPECT_TRUE(q.exceeded());
  c.now += 12000;  // past all 11 windows
  EXPECT_FALSE(q.exceeded());
  EXPECT_EQ(q.measured_bytes_per_second(), 0.0);
}

}  // namespace
}  // namespace spool::replica
