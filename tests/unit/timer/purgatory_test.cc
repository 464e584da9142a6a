// DelayedOperation + Purgatory: completion paths, expiry, exactly-once under
// races, purge of completed watchers, shutdown.
#include "timer/purgatory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "timer/clock.h"
#include "util/topic_partition.h"

namespace spool::timer {
namespace {

// Completes when `ready` is set; counts its callbacks and records their order.
class TestOp : public DelayedOperation {
 public:
  explicit TestOp(int64_t delay) : DelayedOperation(delay) {}
  std::atomic<bool> ready{false};
  std::atomic<int> completes{0};
  std::atomic<int> expirations{0};
  std::atomic<bool> expired_before_complete{false};
  std::atomic<int> tries{0};

 protected:
  bool try_complete() override {
    tries.fetch_add(1);
    return ready.load() ? force_complete() : false;
  }
  void on_complete() override {
    if (expirations.load() == 1) expired_before_complete = true;
    completes.fetch_add(1);
  }
  void on_expiration() override { expirations.fetch_add(1); }
};

struct Fixture {
  explicit Fixture(int purge_interval = 1000)
      : clock(std::make_shared<ManualClock>(0)), purgatory([&] {
          PurgatoryOptions o;
          o.name = "Test";
          o.clock = clock;
          o.start_reaper = false;
          o.purge_interval = purge_interval;
          o.shards = 16;
          return o;
        }()) {}
  void set(int64_t now) {
    clock->set(now);
    purgatory.advance_clock(0);
  }
  std::shared_ptr<ManualClock> clock;
  Purgatory<std::string> purgatory;
};

TEST(Purgatory, CompletesAtOnce) {
  Fixture f;
  auto op = std::make_shared<TestOp>(100);
  op->ready = true;
  EXPECT_TRUE(f.purgatory.try_complete_else_watch(op, {"t-0", "t-1"}));
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_EQ(op->tries.load(), 1);
  EXPECT_EQ(f.purgatory.watched(), 0);
  EXPECT_EQ(f.purgatory.delayed(), 0);
  EXPECT_EQ(op.use_count(), 1);
}

TEST(Purgatory, WatchThenCheckAndComplete) {
  Fixture f;
  auto op = std::make_shared<TestOp>(100);
  EXPECT_FALSE(f.purgatory.try_complete_else_watch(op, {"t-0", "t-1"}));
  EXPECT_EQ(op->tries.load(), 2);  // before and after watching
  EXPECT_EQ(f.purgatory.watched(), 2);
  EXPECT_EQ(f.purgatory.watched_keys(), 2);
  EXPECT_EQ(f.purgatory.delayed(), 1);
  EXPECT_EQ(f.purgatory.check_and_complete("t-0"), 0);
  EXPECT_EQ(f.purgatory.check_and_complete("unknown"), 0);
  op->ready = true;
  EXPECT_EQ(f.purgatory.check_and_complete("t-0"), 1);
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_EQ(op->expirations.load(), 0);
  EXPECT_EQ(f.purgatory.delayed(), 0);  // its timeout was cancelled
  EXPECT_EQ(f.purgatory.watched(), 1);  // still listed under t-1 until checked
  EXPECT_EQ(f.purgatory.check_and_complete("t-1"), 0);
  EXPECT_EQ(f.purgatory.watched(), 0);
  EXPECT_EQ(f.purgatory.watched_keys(), 0);
  f.set(1000);
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_EQ(op.use_count(), 1);
}

TEST(Purgatory, ExpiryRunsOnExpirationThenOnCompleteOnce) {
  Fixture f;
  auto op = std::make_shared<TestOp>(100);
  EXPECT_FALSE(f.purgatory.try_complete_else_watch(op, {"t-0"}));
  f.set(99);
  EXPECT_EQ(op->completes.load(), 0);
  f.set(100);
  EXPECT_EQ(op->expirations.load(), 1);
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_TRUE(op->expired_before_complete.load());
  EXPECT_TRUE(op->is_completed());
  op->ready = true;
  EXPECT_EQ(f.purgatory.check_and_complete("t-0"), 0);
  EXPECT_FALSE(op->force_complete());
  EXPECT_FALSE(op->maybe_try_complete());
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_EQ(f.purgatory.watched(), 0);
}

TEST(Purgatory, ZeroTimeoutExpiresAtOnce) {
  Fixture f;
  auto op = std::make_shared<TestOp>(0);
  EXPECT_FALSE(f.purgatory.try_complete_else_watch(op, {"t-0"}));
  EXPECT_EQ(op->expirations.load(), 1);
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_EQ(f.purgatory.delayed(), 0);
}

TEST(Purgatory, NoKeysIsOnlyTimed) {
  Fixture f;
  auto op = std::make_shared<TestOp>(10);
  EXPECT_FALSE(f.purgatory.try_complete_else_watch(op, {}));
  EXPECT_EQ(f.purgatory.watched(), 0);
  EXPECT_EQ(f.purgatory.delayed(), 1);
  f.set(10);
  EXPECT_EQ(op->completes.load(), 1);
}

TEST(Purgatory, ForceCompleteCancelsTimeout) {
  Fixture f;
  auto op = std::make_shared<TestOp>(50);
  f.purgatory.try_complete_else_watch(op, {"k"});
  EXPECT_TRUE(op->force_complete());
  EXPECT_FALSE(op->force_complete());
  EXPECT_EQ(f.purgatory.delayed(), 0);
  f.set(100);
  EXPECT_EQ(op->expirations.load(), 0);
  EXPECT_EQ(op->completes.load(), 1);
}

TEST(Purgatory, PurgesCompletedWatchers) {
  Fixture f(/*purge_interval=*/10);
  std::vector<std::shared_ptr<TestOp>> ops;
  for (int i = 0; i < 100; ++i) {
    ops.push_back(std::make_shared<TestOp>(1000));
    // Bypass the inline purge check by keeping everything pending first.
    EXPECT_FALSE(f.purgatory.try_complete_else_watch(ops.back(), {"a", "b"}));
  }
  EXPECT_EQ(f.purgatory.watched(), 200);
  for (auto& op : ops) op->ready = true;
  EXPECT_EQ(f.purgatory.check_and_complete("a"), 100);
  EXPECT_EQ(f.purgatory.watched(), 100);  // "b" still lists 100 completed ops
  EXPECT_EQ(f.purgatory.delayed(), 0);
  // The next watch sees ~100 completed-but-watched ops > 10 and sweeps.
  auto fresh = std::make_shared<TestOp>(1000);
  EXPECT_FALSE(f.purgatory.try_complete_else_watch(fresh, {"b"}));
  EXPECT_EQ(f.purgatory.watched(), 1);
  EXPECT_EQ(f.purgatory.watched_keys(), 1);
  for (auto& op : ops) EXPECT_EQ(op.use_count(), 1);
  // And the explicit pass reports what it removed.
  fresh->ready = true;
  EXPECT_TRUE(fresh->maybe_try_complete());
  EXPECT_EQ(f.purgatory.purge_completed(), 1);
  EXPECT_EQ(f.purgatory.watched(), 0);
}

TEST(Purgatory, PurgeAlsoRunsFromReaperStep) {
  Fixture f(/*purge_interval=*/5);
  std::vector<std::shared_ptr<TestOp>> ops;
  for (int i = 0; i < 20; ++i) {
    ops.push_back(std::make_shared<TestOp>(1000));
    f.purgatory.try_complete_else_watch(ops.back(), {"x", "y"});
  }
  for (auto& op : ops) op->force_complete();
  EXPECT_EQ(f.purgatory.watched(), 40);
  f.set(1);
  EXPECT_EQ(f.purgatory.watched(), 0);
}

// Many threads complete, force and expire the same operations; each must
// complete exactly once and expire at most once, expiry only when it won.
TEST(Purgatory, RacesCompleteEachOperationExactlyOnce) {
  Fixture f;
  constexpr int kOps = 4000;
  constexpr int kKeys = 8;
  std::vector<std::shared_ptr<TestOp>> ops;
  std::vector<std::string> keys;
  for (int k = 0; k < kKeys; ++k) keys.push_back("t-" + std::to_string(k));
  for (int i = 0; i < kOps; ++i) ops.push_back(std::make_shared<TestOp>(1 + i % 50));

  std::atomic<bool> stop{false};
  std::atomic<int> added{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // registers ops on two keys each
    for (int i = 0; i < kOps; ++i) {
      f.purgatory.try_complete_else_watch(ops[i], {keys[i % kKeys], keys[(i + 3) % kKeys]});
      added.fetch_add(1);
    }
  });
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {  // flips ready and checks keys
      std::mt19937 rng(t);
      while (!stop.load()) {
        int i = static_cast<int>(rng() % kOps);
        if (i < added.load()) ops[i]->ready = true;
        f.purgatory.check_and_complete(keys[rng() % kKeys]);
      }
    });
  }
  threads.emplace_back([&] {  // forces random ops
    std::mt19937 rng(99);
    while (!stop.load()) {
      int i = static_cast<int>(rng() % kOps);
      if (i < added.load()) ops[i]->force_complete();
    }
  });
  // Meanwhile the timer expires them.
  for (int64_t now = 1; added.load() < kOps || now < 60; ++now) {
    f.set(std::min<int64_t>(now, 60));
    std::this_thread::yield();
  }
  f.set(1000);
  stop = true;
  for (auto& th : threads) th.join();
  f.set(2000);
  int expired = 0;
  for (auto& op : ops) {
    ASSERT_EQ(op->completes.load(), 1);
    ASSERT_LE(op->expirations.load(), 1);
    if (op->expirations.load() == 1) {
      ++expired;
      EXPECT_TRUE(op->expired_before_complete.load());
    }
  }
  EXPECT_EQ(f.purgatory.delayed(), 0);
  f.purgatory.purge_completed();
  EXPECT_EQ(f.purgatory.watched(), 0);
  RecordProperty("expired", expired);
}

TEST(Purgatory, ShutdownExpiresPendingOps) {
  Fixture f;
  std::vector<std::shared_ptr<TestOp>> ops;
  for (int i = 0; i < 10; ++i) {
    ops.push_back(std::make_shared<TestOp>(1000));
    f.purgatory.try_complete_else_watch(ops.back(), {"k" + std::to_string(i % 3)});
  }
  ops[0]->ready = true;
  f.purgatory.check_and_complete("k0");
  f.purgatory.shutdown();
  f.purgatory.shutdown();  // idempotent
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i]->completes.load(), 1);
    EXPECT_EQ(ops[i]->expirations.load(), i == 0 ? 0 : 1);
    EXPECT_EQ(ops[i].use_count(), 1);
  }
  EXPECT_EQ(f.purgatory.watched(), 0);
  EXPECT_EQ(f.purgatory.delayed(), 0);
  // After shutdown nothing waits: completable ops complete, others expire.
  auto late = std::make_shared<TestOp>(1000);
  EXPECT_FALSE(f.purgatory.try_complete_else_watch(late, {"k0"}));
  EXPECT_EQ(late->expirations.load(), 1);
  EXPECT_EQ(late->completes.load(), 1);
  auto ready = std::make_shared<TestOp>(1000);
  ready->ready = true;
  EXPECT_TRUE(f.purgatory.try_complete_else_watch(ready, {"k0"}));
}

TEST(Purgatory, ShutdownWithoutExpiryDropsPendingOps) {
  std::weak_ptr<TestOp> weak;
  auto clock = std::make_shared<ManualClock>(0);
  {
    PurgatoryOptions o;
    o.clock = clock;
    o.start_reaper = false;
    Purgatory<std::string> p(o);
    auto op = std::make_shared<TestOp>(1000);
    p.try_complete_else_watch(op, {"k"});
    weak = op;
    op.reset();
    p.shutdown(false);
    EXPECT_TRUE(weak.expired());
  }
}

TEST(Purgatory, ReaperExpiresOnRealClock) {
  PurgatoryOptions o;
  o.name = "Fetch";
  Purgatory<std::string> p(o);  // reaper thread on the steady clock
  auto op = std::make_shared<TestOp>(15);
  const auto start = std::chrono::steady_clock::now();
  p.try_complete_else_watch(op, {"t-0"});
  while (op->completes.load() == 0 && std::chrono::steady_clock::now() - start < std::chrono::seconds(2)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(op->expirations.load(), 1);
  EXPECT_EQ(op->completes.load(), 1);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(14));
}

TEST(Purgatory, SharedLockAllowsReentry) {
  // A caller holding a group lock shared with its operations can still
  // register them (Kafka's group coordinator does this).
  Fixture f;
  auto lock = std::make_shared<std::recursive_mutex>();
  struct GroupOp : DelayedOperation {
    GroupOp(std::shared_ptr<std::recursive_mutex> l) : DelayedOperation(100, std::move(l)) {}
    bool try_complete() override { return false; }
    void on_complete() override { ++completes; }
    int completes = 0;
  };
  auto op = std::make_shared<GroupOp>(lock);
  {
    std::lock_guard<std::recursive_mutex> g(*lock);
    EXPECT_FALSE(f.purgatory.try_complete_else_watch(op, {"group-a"}));
  }
  f.set(100);
  EXPECT_EQ(op->completes, 1);
}

TEST(Purgatory, TypedKeysNeverCollide) {
  // As "topic-partition" strings these two were the same key ("a-12").
  PurgatoryOptions o;
  o.clock = std::make_shared<ManualClock>(0);
  o.start_reaper = false;
  o.shards = 1;  // same shard: only key equality tells them apart
  Purgatory<TopicPartition> p(o);
  auto a1p2 = std::make_shared<TestOp>(100);
  auto a_p12 = std::make_shared<TestOp>(100);
  EXPECT_FALSE(p.try_complete_else_watch(a1p2, {TopicPartition("a-1", 2)}));
  EXPECT_FALSE(p.try_complete_else_watch(a_p12, {TopicPartition("a", 12)}));
  EXPECT_EQ(p.watched_keys(), 2);
  a1p2->ready = true;
  a_p12->ready = true;
  EXPECT_EQ(p.check_and_complete(TopicPartition("a", 12)), 1);
  EXPECT_EQ(a_p12->completes.load(), 1);
  EXPECT_EQ(a1p2->completes.load(), 0);  // not woken by the other key
  EXPECT_EQ(p.check_and_complete(TopicPartition("a-1", 2)), 1);
  EXPECT_EQ(a1p2->completes.load(), 1);
  EXPECT_EQ(p.watched_keys(), 0);
  p.shutdown(false);
}

TEST(Purgatory, CustomHashKey) {
  // A key type with its own hash functor (the group coordinator's members).
  struct Member {
    std::string group, member;
    bool operator==(const Member&) const = default;
  };
  struct MemberHash {
    size_t operator()(const Member& m) const { return std::hash<std::string>{}(m.group + '\0' + m.member); }
  };
  PurgatoryOptions o;
  o.clock = std::make_shared<ManualClock>(0);
  o.start_reaper = false;
  Purgatory<Member, MemberHash> p(o);
  auto op = std::make_shared<TestOp>(100);
  EXPECT_FALSE(p.try_complete_else_watch(op, {Member{"g", "m1"}}));
  op->ready = true;
  EXPECT_EQ(p.check_and_complete(Member{"g", "m2"}), 0);
  EXPECT_EQ(p.check_and_complete(Member{"g", "m1"}), 1);
  EXPECT_EQ(op->completes.load(), 1);
  p.shutdown(false);
}

}  // namespace
}  // namespace spool::timer
