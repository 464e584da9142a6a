#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "storage/file_util.h"
#include "storage/flusher.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

struct Latch {
  std::mutex mu;
  std::condition_variable cv;
  int remaining;
  explicit Latch(int n) : remaining(n) {}
  void count_down() {
    std::lock_guard lk(mu);
    if (--remaining == 0) cv.notify_all();
  }
  bool wait(int ms = 5000) {
    std::unique_lock lk(mu);
    return cv.wait_for(lk, std::chrono::milliseconds(ms), [&] { return remaining == 0; });
  }
};

TEST(Flusher, CallsBackAfterFsync) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), LogConfig{});
  Flusher f;
  f.start();
  auto a = append(*log, 3);
  EXPECT_LT(log->flushed_offset(), 3);
  Latch latch(1);
  std::atomic<bool> ok{false};
  std::thread::id cb_thread;
  f.await_durable(log, a.last_offset, [&](Status s) {
    ok = s.is_ok();
    cb_thread = std::this_thread::get_id();
    EXPECT_GT(log->flushed_offset(), a.last_offset);
    latch.count_down();
  });
  ASSERT_TRUE(latch.wait());
  EXPECT_TRUE(ok);
  EXPECT_NE(cb_thread, std::this_thread::get_id());
  f.stop();
}

TEST(Flusher, GroupsManyWaitersIntoFewSyncs) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), LogConfig{});
  Flusher f;
  constexpr int kWaiters = 200;
  std::vector<int64_t> lasts;
  for (int i = 0; i < kWaiters; ++i) lasts.push_back(append(*log, 1).last_offset);
  uint64_t syncs_before = sync_call_count();
  Latch latch(kWaiters);
  std::atomic<int> failures{0};
  // Park them all before the thread starts: one pass must serve them all.
  f.start();
  {
    for (int i = 0; i < kWaiters; ++i)
      f.await_durable(log, lasts[i], [&](Status s) {
        if (!s) failures++;
        latch.count_down();
      });
  }
  ASSERT_TRUE(latch.wait());
  EXPECT_EQ(failures.load(), 0);
  uint64_t syncs = sync_call_count() - syncs_before;
  // A pass costs ~1 fdatasync (+ a dir sync / epoch file); far fewer than waiters.
  EXPECT_LT(syncs, 40u) << "syncs=" << syncs;
  EXPECT_LT(f.passes(), 40u);
  f.stop();
}

TEST(Flusher, ConcurrentProducersShareSyncs) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), LogConfig{});
  Flusher f;
  f.start();
  constexpr int kThreads = 4, kEach = 50;
  Latch latch(kThreads * kEach);
  uint64_t syncs_before = sync_call_count();
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        auto a = append(*log, 1);
        f.await_durable(log, a.last_offset, [&](Status s) {
          EXPECT_TRUE(s.is_ok());
          latch.count_down();
        });
      }
    });
  for (auto& t : ts) t.join();
  ASSERT_TRUE(latch.wait());
  EXPECT_EQ(log->flushed_offset(), kThreads * kEach);
  EXPECT_LE(sync_call_count() - syncs_before, static_cast<uint64_t>(kThreads * kEach));
  f.stop();
}

TEST(Flusher, NonDurableLogsAnswerWithoutSync) {
  TempDir d;
  LogConfig c;
  c.durable_writes = false;
  auto log = open_log(d.sub("t-0"), c);
  Flusher f;
  f.start();
  auto a = append(*log, 1);
  Latch latch(1);
  f.await_durable(log, a.last_offset, [&](Status s) {
    EXPECT_TRUE(s.is_ok());
    latch.count_down();
  });
  ASSERT_TRUE(latch.wait());
  EXPECT_EQ(log->flushed_offset(), 0);
  f.stop();
  // After stop: answered at once with an error.
  bool called = false;
  f.await_durable(log, a.last_offset, [&](Status s) { called = !s.is_ok(); });
  EXPECT_TRUE(called);
}

TEST(Flusher, FlushMessagesPolicy) {
  TempDir d;
  LogConfig c;
  c.flush_messages = 5;
  auto log = open_log(d.sub("t-0"), c);
  Flusher f;
  log->set_flusher(&f);
  f.start();
  for (int i = 0; i < 6; ++i) append(*log, 1);
  for (int i = 0; i < 200 && log->flushed_offset() < 5; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GE(log->flushed_offset(), 5);
  f.stop();
}

TEST(Flusher, FlushMsPolicy) {
  TempDir d;
  LogConfig c;
  c.flush_ms = 20;
  auto log = open_log(d.sub("t-0"), c);
  Flusher f;
  log->set_flusher(&f);
  f.start();
  append(*log, 1);
  for (int i = 0; i < 200 && log->flushed_offset() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(log->flushed_offset(), 1);
  f.stop();
}

}  // namespace
}  // namespace spool::storage
