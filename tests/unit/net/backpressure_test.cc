#include "net/backpressure.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace spool::net {
namespace {

TEST(RequestMemoryPool, UnboundedAlwaysReserves) {
  RequestMemoryPool pool(-1);
  EXPECT_FALSE(pool.bounded());
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(pool.try_reserve(100 << 20));
  EXPECT_TRUE(pool.reserve_or_wait(1, [] { FAIL() << "unbounded pool parked a waiter"; }));
}

TEST(RequestMemoryPool, NonStrictLikeKafka) {
  RequestMemoryPool pool(1000);
  // A request larger than the pool passes while the pool is not exhausted.
  EXPECT_TRUE(pool.try_reserve(5000));
  EXPECT_EQ(pool.used(), 5000);
  EXPECT_FALSE(pool.try_reserve(1));
  pool.release(5000);
  EXPECT_EQ(pool.used(), 0);
  EXPECT_TRUE(pool.try_reserve(999));
  EXPECT_TRUE(pool.try_reserve(10));  // 999 < 1000: still room
  EXPECT_FALSE(pool.try_reserve(1));  // 1009 >= 1000: exhausted
}

TEST(RequestMemoryPool, ParkedWaitersWakeOnceOnRelease) {
  RequestMemoryPool pool(100);
  ASSERT_TRUE(pool.try_reserve(100));
  int woken_a = 0, woken_b = 0;
  EXPECT_FALSE(pool.reserve_or_wait(10, [&] { ++woken_a; }));
  EXPECT_FALSE(pool.reserve_or_wait(10, [&] { ++woken_b; }));
  EXPECT_EQ(pool.used(), 100);  // a parked reservation takes nothing
  pool.release(50);
  EXPECT_EQ(woken_a, 1);
  EXPECT_EQ(woken_b, 1);
  pool.release(50);  // nobody parked any more
  EXPECT_EQ(woken_a, 1);
  EXPECT_EQ(pool.used(), 0);
}

TEST(RequestMemoryPool, ReleaseWhileStillExhaustedWakesNobody) {
  RequestMemoryPool pool(100);
  ASSERT_TRUE(pool.try_reserve(300));
  int woken = 0;
  EXPECT_FALSE(pool.reserve_or_wait(1, [&] { ++woken; }));
  pool.release(100);  // 200 in use: still exhausted
  EXPECT_EQ(woken, 0);
  pool.release(150);  // 50 in use
  EXPECT_EQ(woken, 1);
}

TEST(RequestMemoryPool, OverReleaseClampsAtZero) {
  RequestMemoryPool pool(10);
  pool.release(5);
  EXPECT_EQ(pool.used(), 0);
  EXPECT_TRUE(pool.try_reserve(10));
  EXPECT_FALSE(pool.try_reserve(1));
}

TEST(RequestMemoryPool, ConcurrentReserveReleaseBalances) {
  RequestMemoryPool pool(1 << 20);
  std::atomic<int> granted{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        if (pool.try_reserve(4096)) {
          granted.fetch_add(1);
          pool.release(4096);
        }
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(pool.used(), 0);
  EXPECT_EQ(granted.load(), 40000);  // never exhausted: 4 x 4 KiB << 1 MiB
}

}  // namespace
}  // namespace spool::net
