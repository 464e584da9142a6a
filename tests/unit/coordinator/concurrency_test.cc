// Members on several threads with the real clock and reaper threads: every
// request is answered exactly once and nothing deadlocks (run under ASan in
// CI). Correctness only; timeouts are generous.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>

#include "coordinator_test_support.h"

namespace spool::coordinator {
namespace {

template <typename T>
class Waiter {
 public:
  std::function<void(T)> callback() {
    return [this](T v) {
      std::lock_guard g(mu_);
      ++calls_;
      value_ = std::move(v);
      cv_.notify_all();
    };
  }
  std::optional<T> wait() {
    std::unique_lock lk(mu_);
    cv_.wait_for(lk, std::chrono::seconds(60), [&] { return calls_ > 0; });
    return value_;
  }
  int calls() {
    std::lock_guard g(mu_);
    return calls_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int calls_ = 0;
  std::optional<T> value_;
};

TEST(CoordinatorConcurrency, MembersOnManyThreadsAlwaysGetOneAnswer) {
  testing::FakeOffsetsLog log(2);
  GroupCoordinatorOptions o;
  o.group_min_session_timeout_ms = 100;
  o.group_initial_rebalance_delay_ms = 50;
  o.offsets_retention_check_interval_ms = 20;
  o.offsets_retention_ms = 1;
  GroupCoordinator c(log, o);
  ASSERT_TRUE(c.load_partition(0).is_ok());
  ASSERT_TRUE(c.load_partition(1).is_ok());

  std::atomic<int> unanswered{0};
  std::atomic<int> stable_syncs{0};
  auto member = [&](int index) {
    for (int round = 0; round < 3; ++round) {
      JoinGroupParams p;
      p.group_id = "g";
      p.client_id = "c" + std::to_string(index);
      p.session_timeout_ms = 600;
      p.rebalance_timeout_ms = 800;
      p.protocol_type = "consumer";
      p.protocols = {{"range", testing::subscription({"t"})}};
      p.require_known_member_id = true;
      Waiter<JoinGroupResult> first;
      c.join_group(p, first.callback());
      auto r1 = first.wait();
      if (!r1) { ++unanswered; return; }
      if (r1->error != ErrorCode::kMemberIdRequired) continue;
      p.member_id = r1->member_id;
      Waiter<JoinGroupResult> second;
      c.join_group(p, second.callback());
      auto r2 = second.wait();
      if (!r2) { ++unanswered; return; }
      if (r2->error != ErrorCode::kNone) continue;
      SyncGroupParams s;
      s.group_id = "g";
      s.member_id = r2->member_id;
      s.generation_id = r2->generation_id;
      for (const auto& m : r2->members) s.assignments.emplace_back(m.member_id, testing::bytes_of("a"));
      Waiter<SyncGroupResult> sw;
      c.sync_group(s, sw.callback());
      auto sr = sw.wait();
      if (!sr) { ++unanswered; return; }
      if (sr->error == ErrorCode::kNone) ++stable_syncs;
      for (int i = 0; i < 3; ++i) {
        c.heartbeat("g", r2->member_id, std::nullopt, r2->generation_id);
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
      }
      OffsetCommitParams cp;
      cp.group_id = "g";
      cp.member_id = r2->member_id;
      cp.generation_id = r2->generation_id;
      cp.offsets = {testing::entry("t", index, round)};
      Waiter<PartitionErrors> cw;
      c.commit_offsets(cp, cw.callback());
      if (!cw.wait()) { ++unanswered; return; }
      if (round % 2 == 0) c.leave_group("g", {{r2->member_id, std::nullopt}});
    }
  };
  std::atomic<bool> stop{false};
  std::thread observer([&] {
    while (!stop.load()) {
      c.describe_groups({"g"});
      c.list_groups({});
      c.fetch_offsets("g", std::nullopt, false);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back(member, i);
  for (auto& t : threads) t.join();
  stop = true;
  observer.join();
  EXPECT_EQ(unanswered.load(), 0);
  EXPECT_GT(stable_syncs.load(), 0);

  // A join left waiting is answered by shutdown.
  JoinGroupParams p;
  p.group_id = "late";
  p.session_timeout_ms = 600;
  p.rebalance_timeout_ms = 60000;
  p.protocol_type = "consumer";
  p.protocols = {{"range", Bytes{}}};
  Waiter<JoinGroupResult> a, b;
  c.join_group(p, a.callback());
  ASSERT_TRUE(a.wait().has_value());
  c.join_group(p, b.callback());  // second member: the first must rejoin
  c.shutdown();
  auto rb = b.wait();
  ASSERT_TRUE(rb.has_value());
  EXPECT_EQ(b.calls(), 1);
}

}  // namespace
}  // namespace spool::coordinator
