// ReplicaSet: Kafka's ISR, pending-change and high-watermark rules with
// Spool's fsync counting and strict min-ISR rule, exact values. Time is a
// plain now_ms (the caller's clock), so no clock is needed here.
#include <gtest/gtest.h>

#include <set>

#include "replica/replica_set.h"

namespace spool::replica {
namespace {

using protocol::ErrorCode;
using V = std::vector<int32_t>;

constexpr int64_t kLag = 30000;

// Realistic wall-clock times: a follower reset to "last caught up 0" must not
// look caught up (now - 0 > replica.lag.time.max.ms), as in Kafka.
constexpr int64_t T = 1'700'000'000'000;

struct Fixture {
  std::set<int32_t> live{1, 2, 3};
  ReplicaSetConfig config;
  ReplicaSet rs;

  explicit Fixture(int32_t min_isr = 2, bool durable = true)
      : config{kLag, min_isr, durable}, rs(1, config, [this](int32_t id) { return live.count(id) > 0; }) {}

  static LeaderAndIsrState state(int32_t epoch, int32_t partition_epoch, V isr, V replicas = {1, 2, 3}) {
    LeaderAndIsrState s;
    s.leader_epoch = epoch;
    s.partition_epoch = partition_epoch;
    s.replicas = std::move(replicas);
    s.isr = std::move(isr);
    return s;
  }
};

LocalLogOffsets local(int64_t leo, int64_t synced) { return {leo, synced}; }

AlterPartitionResult error(ErrorCode e) {
  AlterPartitionResult r;
  r.error = e;
  return r;
}

TEST(ReplicaSet, BecomeLeaderNewEpochResetsFollowers) {
  Fixture f;
  EXPECT_EQ(f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 100, 90, T + 1000), BecomeLeaderOutcome::kNewEpoch);
  EXPECT_EQ(f.rs.leader_epoch(), 5);
  EXPECT_EQ(f.rs.leader_epoch_start_offset(), 100);
  EXPECT_EQ(f.rs.partition_epoch(), 10);
  EXPECT_EQ(f.rs.isr(), (V{1, 2}));
  EXPECT_EQ(f.rs.high_watermark(), 90);
  ASSERT_NE(f.rs.follower(2), nullptr);
  ASSERT_NE(f.rs.follower(3), nullptr);
  EXPECT_EQ(f.rs.follower(1), nullptr);  // the leader is not a follower
  EXPECT_EQ(f.rs.follower(2)->log_end_offset, -1);
  EXPECT_EQ(f.rs.follower(2)->last_caught_up_time_ms, T + 1000);  // in the ISR
  EXPECT_EQ(f.rs.follower(3)->last_caught_up_time_ms, 0);     // not
}

TEST(ReplicaSet, BecomeLeaderAddsItselfToTheIsrAndSortsIt) {
  Fixture f;
  f.rs.become_leader(Fixture::state(1, 1, {3, 2, 3}), 0, 0, T + 0);
  EXPECT_EQ(f.rs.isr(), (V{1, 2, 3}));
}

TEST(ReplicaSet, BecomeLeaderStalePartitionEpochIsSkipped) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 100, 90, T + 1000);
  EXPECT_EQ(f.rs.become_leader(Fixture::state(6, 9, {1}), 200, 90, T + 2000), BecomeLeaderOutcome::kSkippedStale);
  EXPECT_EQ(f.rs.leader_epoch(), 5);
  EXPECT_EQ(f.rs.isr(), (V{1, 2}));
  EXPECT_EQ(f.rs.leader_epoch_start_offset(), 100);
}

TEST(ReplicaSet, BecomeLeaderSameEpochKeepsFollowerStateAndDropsPending) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 100, 100, T + 1000);
  ASSERT_EQ(f.rs.record_fetch(3, 100, 0, -1, 100, T + 1500), ErrorCode::kNone);
  ASSERT_TRUE(f.rs.maybe_expand_isr(3));
  ASSERT_TRUE(f.rs.pending_change());
  EXPECT_EQ(f.rs.become_leader(Fixture::state(5, 11, {1, 2, 3}), 150, 100, T + 2000), BecomeLeaderOutcome::kSameEpoch);
  EXPECT_FALSE(f.rs.pending_change());
  EXPECT_EQ(f.rs.isr(), (V{1, 2, 3}));
  EXPECT_EQ(f.rs.partition_epoch(), 11);
  EXPECT_EQ(f.rs.leader_epoch_start_offset(), 100);  // unchanged in the same epoch
  EXPECT_EQ(f.rs.follower(3)->log_end_offset, 100);   // kept
  EXPECT_EQ(f.rs.follower(3)->last_caught_up_time_ms, T + 1500);
}

TEST(ReplicaSet, ReelectedLeaderKeepsFollowerOffsetsAndItsHighWatermark) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 100, 100, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1100);
  f.rs.record_fetch(3, 100, 0, -1, 100, T + 1100);
  ASSERT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 100), T + 1100) == false);  // already 100
  EXPECT_EQ(f.rs.become_leader(Fixture::state(6, 12, {1, 2}), 100, 40, T + 2000), BecomeLeaderOutcome::kNewEpoch);
  EXPECT_EQ(f.rs.high_watermark(), 100);  // never backwards while leading
  EXPECT_EQ(f.rs.follower(2)->log_end_offset, 100);
  EXPECT_EQ(f.rs.follower(2)->last_fetch_leader_log_end_offset, 100);
  EXPECT_EQ(f.rs.follower(3)->last_caught_up_time_ms, 0);  // left the ISR
}

TEST(ReplicaSet, BecomeFollowerStopsLeadingAndTheNextLeadershipStartsFresh) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 100, 100, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1100);
  f.rs.record_fetch(3, 100, 0, -1, 100, T + 1100);
  ASSERT_TRUE(f.rs.maybe_shrink_isr(150, T + 1000 + 2 * kLag));
  f.rs.become_follower(6, 11);
  EXPECT_FALSE(f.rs.leading());
  EXPECT_FALSE(f.rs.pending_change());
  EXPECT_EQ(f.rs.follower(2), nullptr);
  EXPECT_EQ(f.rs.leader_epoch(), 6);
  EXPECT_EQ(f.rs.check_enough_replicas_reach(50), (AckCheck{true, ErrorCode::kNotLeaderOrFollower}));
  EXPECT_FALSE(f.rs.maybe_advance_high_watermark(local(200, 200), T + 2000));
  EXPECT_EQ(f.rs.record_fetch(2, 100, 0, -1, 100, T + 2000), ErrorCode::kUnknownLeaderEpoch);
  // A LeaderAndIsr older than what the follower saw is skipped.
  EXPECT_EQ(f.rs.become_leader(Fixture::state(7, 10, {1, 2}), 200, 150, T + 3000), BecomeLeaderOutcome::kSkippedStale);
  EXPECT_FALSE(f.rs.leading());
  // Leading again: a new leader, follower offsets unknown, its own HW taken.
  EXPECT_EQ(f.rs.become_leader(Fixture::state(7, 12, {1, 2}), 200, 150, T + 3000), BecomeLeaderOutcome::kNewEpoch);
  EXPECT_EQ(f.rs.follower(2)->log_end_offset, -1);
  EXPECT_EQ(f.rs.high_watermark(), 150);
  EXPECT_EQ(f.rs.leader_epoch_start_offset(), 200);
}

TEST(ReplicaSet, RemovedReplicaIsForgotten) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 0, 0, T + 0);
  f.rs.become_leader(Fixture::state(5, 11, {1, 2}, {1, 2}), 0, 0, T + 0);
  EXPECT_EQ(f.rs.follower(3), nullptr);
  EXPECT_EQ(f.rs.record_fetch(3, 0, 0, -1, 0, T + 0), ErrorCode::kUnknownLeaderEpoch);
}

TEST(ReplicaSet, CheckLeaderEpoch) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 0);
  EXPECT_EQ(f.rs.check_leader_epoch(5), ErrorCode::kNone);
  EXPECT_EQ(f.rs.check_leader_epoch(-1), ErrorCode::kNone);
  EXPECT_EQ(f.rs.check_leader_epoch(4), ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(f.rs.check_leader_epoch(6), ErrorCode::kUnknownLeaderEpoch);
}

TEST(ReplicaSet, FetchFromANonReplicaIsUnknownLeaderEpoch) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 0);
  EXPECT_EQ(f.rs.record_fetch(9, 0, 0, -1, 0, T + 0), ErrorCode::kUnknownLeaderEpoch);
  EXPECT_EQ(f.rs.record_fetch(1, 0, 0, -1, 0, T + 0), ErrorCode::kUnknownLeaderEpoch);  // itself
}

TEST(ReplicaSet, ShrinkRemovesFollowersPastTheLag) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 100, 100, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1000);  // caught up at 1000
  f.rs.record_fetch(3, 100, 0, -1, 100, T + 1000);
  // The leader appends to 150; follower 2 keeps up, follower 3 stops.
  f.rs.record_fetch(2, 150, 0, -1, 150, T + 20000);
  EXPECT_TRUE(f.rs.out_of_sync_replicas(150, T + (1000 + kLag)).empty());  // 3: exactly the lag
  EXPECT_FALSE(f.rs.maybe_shrink_isr(150, T + (1000 + kLag)));
  EXPECT_EQ(f.rs.out_of_sync_replicas(150, T + (1000 + kLag + 1)), (V{3}));
  auto c = f.rs.maybe_shrink_isr(150, T + (1000 + kLag + 1));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, IsrChange::Kind::kShrink);
  EXPECT_EQ(c->new_isr, (V{1, 2}));
  EXPECT_EQ(c->replicas, (V{3}));
  EXPECT_EQ(c->leader_epoch, 5);
  EXPECT_EQ(c->partition_epoch, 10);
  // Pending: the maximal ISR is still the current one; no other change.
  EXPECT_EQ(f.rs.maximal_isr(), (V{1, 2, 3}));
  EXPECT_EQ(f.rs.isr(), (V{1, 2, 3}));
  EXPECT_TRUE(f.rs.out_of_sync_replicas(150, T + 999999).empty());
  EXPECT_FALSE(f.rs.maybe_shrink_isr(150, T + 999999));
}

TEST(ReplicaSet, FollowerAtTheLeaderEndIsNeverOutOfSync) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 100, 100, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1000);
  // No appends for a long time: still in sync.
  EXPECT_TRUE(f.rs.out_of_sync_replicas(100, T + (10 * kLag)).empty());
  // One append and the clock past the lag: out.
  EXPECT_EQ(f.rs.out_of_sync_replicas(101, T + (10 * kLag)), (V{2}));
}

TEST(ReplicaSet, ShrinkOfAFollowerThatNeverFetchedUnderANewLeader) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 100, 100, T + 1000);
  // Unknown log end (-1) != 100; caught up "at" 1000 from the reset.
  EXPECT_TRUE(f.rs.out_of_sync_replicas(100, T + (1000 + kLag)).empty());
  EXPECT_EQ(f.rs.out_of_sync_replicas(100, T + (1000 + kLag + 1)), (V{2}));
}

TEST(ReplicaSet, ExpandNeedsHighWatermarkAndEpochStart) {
  Fixture f;
  // Epoch 5 starts at 100; the high watermark is still 80 (it lags after failover).
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 100, 80, T + 1000);
  f.rs.record_fetch(3, 90, 0, -1, 120, T + 1100);  // >= HW 80 but < epoch start 100 (KAFKA-7128)
  EXPECT_FALSE(f.rs.can_expand(3));
  EXPECT_FALSE(f.rs.maybe_expand_isr(3));
  f.rs.record_fetch(3, 100, 0, -1, 120, T + 1200);  // reaches the epoch start
  EXPECT_TRUE(f.rs.can_expand(3));
  EXPECT_FALSE(f.rs.can_expand(2));  // already in
  auto c = f.rs.maybe_expand_isr(3);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, IsrChange::Kind::kExpand);
  EXPECT_EQ(c->new_isr, (V{1, 2, 3}));
  EXPECT_EQ(c->replicas, (V{3}));
  EXPECT_EQ(f.rs.maximal_isr(), (V{1, 2, 3}));  // current + new while pending
  EXPECT_EQ(f.rs.isr(), (V{1, 2}));
  EXPECT_FALSE(f.rs.maybe_expand_isr(3));  // one change at a time
}

TEST(ReplicaSet, ExpandNeedsLogEndAtTheHighWatermark) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 50, 80, T + 1000);  // HW above the epoch start (re-elected)
  f.rs.record_fetch(3, 60, 0, -1, 100, T + 1100);  // >= epoch start 50, < HW 80
  EXPECT_FALSE(f.rs.can_expand(3));
  f.rs.record_fetch(3, 80, 0, -1, 100, T + 1200);
  EXPECT_TRUE(f.rs.can_expand(3));
}

TEST(ReplicaSet, ExpandNeedsAnEligibleReplica) {
  Fixture f;
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
  f.rs.record_fetch(3, 0, 0, -1, 0, T + 1100);
  f.live.erase(3);
  EXPECT_FALSE(f.rs.can_expand(3));
  f.live.insert(3);
  EXPECT_TRUE(f.rs.can_expand(3));
}

TEST(ReplicaSet, HighWatermarkIsTheMinimumOverTheIsr) {
  Fixture f(/*min_isr=*/1, /*durable=*/false);
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 0, 0, T + 1000);
  // Followers have not fetched yet: unknown log ends hold it at 0.
  EXPECT_EQ(f.rs.high_watermark_candidate(local(100, 0), T + 1000), -1);
  EXPECT_FALSE(f.rs.maybe_advance_high_watermark(local(100, 0), T + 1000));
  f.rs.record_fetch(2, 70, 0, -1, 100, T + 1100);
  f.rs.record_fetch(3, 40, 0, -1, 100, T + 1100);
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 0), T + 1100));
  EXPECT_EQ(f.rs.high_watermark(), 40);
  f.rs.record_fetch(3, 100, 0, -1, 100, T + 1200);
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 0), T + 1200));
  EXPECT_EQ(f.rs.high_watermark(), 70);
  // A follower going back (it truncated) does not move it back.
  f.rs.record_fetch(2, 30, 0, -1, 100, T + 1300);
  EXPECT_FALSE(f.rs.maybe_advance_high_watermark(local(100, 0), T + 1300));
  EXPECT_EQ(f.rs.high_watermark(), 70);
}

TEST(ReplicaSet, DurableWritesCountOnlyFsyncedOffsets) {
  Fixture f(/*min_isr=*/2, /*durable=*/true);
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1100);  // the follower's fetch offset = its fsynced offset
  EXPECT_EQ(f.rs.follower(2)->synced_offset, 100);
  // The leader has 100 in its log but only 60 fsynced.
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 60), T + 1100));
  EXPECT_EQ(f.rs.high_watermark(), 60);
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 100), T + 1100));
  EXPECT_EQ(f.rs.high_watermark(), 100);
  // Without durable writes the log end counts.
  Fixture g(2, false);
  g.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
  g.rs.record_fetch(2, 100, 0, -1, 100, T + 1100);
  EXPECT_TRUE(g.rs.maybe_advance_high_watermark(local(100, 60), T + 1100));
  EXPECT_EQ(g.rs.high_watermark(), 100);
  // The config can change live.
  g.rs.set_config({kLag, 2, true});
  EXPECT_EQ(g.rs.high_watermark_candidate(local(120, 110), T + 1100), 100);
  EXPECT_TRUE(g.rs.config().durable_writes);
}

TEST(ReplicaSet, StrictMinIsrFreezesTheHighWatermark) {
  Fixture f(/*min_isr=*/2, /*durable=*/false);
  f.rs.become_leader(Fixture::state(5, 10, {1}), 0, 0, T + 1000);
  EXPECT_TRUE(f.rs.under_min_isr());
  // Alone in the ISR, the leader's own log would allow 100; the strict rule says no.
  EXPECT_EQ(f.rs.high_watermark_candidate(local(100, 100), T + 1000), 100);
  EXPECT_FALSE(f.rs.maybe_advance_high_watermark(local(100, 100), T + 1000));
  EXPECT_EQ(f.rs.high_watermark(), 0);
  // Follower 2 catches up and joins; while the expansion is pending the
  // committed ISR is still 1 and the high watermark stays.
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1100);
  auto c = f.rs.maybe_expand_isr(2);
  ASSERT_TRUE(c);
  EXPECT_FALSE(f.rs.maybe_advance_high_watermark(local(100, 100), T + 1100));
  AlterPartitionResult ok{ErrorCode::kNone, 1, 5, 11, {1, 2}};
  EXPECT_EQ(f.rs.on_alter_partition_response(c->id, ok), AlterOutcome::kCommitted);
  EXPECT_FALSE(f.rs.under_min_isr());
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 100), T + 1100));
  EXPECT_EQ(f.rs.high_watermark(), 100);
}

TEST(ReplicaSet, EffectiveMinIsrIsCappedByTheReplicaCount) {
  Fixture f(/*min_isr=*/2, /*durable=*/false);
  f.rs.become_leader(Fixture::state(1, 1, {1}, {1}), 0, 0, T + 0);  // RF=1
  EXPECT_EQ(f.rs.effective_min_isr(), 1);
  EXPECT_FALSE(f.rs.under_min_isr());
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(10, 10), T + 0));
  EXPECT_EQ(f.rs.high_watermark(), 10);
  EXPECT_EQ(f.rs.check_append(-1), ErrorCode::kNone);
}

TEST(ReplicaSet, CaughtUpNonIsrFollowerHoldsTheHighWatermark) {
  Fixture f(/*min_isr=*/1, /*durable=*/false);
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1000);
  // 3 is outside the ISR; its first fetch (90 of 100) says nothing about when
  // it was caught up: last caught up stays 0, so it is not waited for.
  f.rs.record_fetch(3, 90, 0, -1, 100, T + 1000);
  EXPECT_EQ(f.rs.follower(3)->last_caught_up_time_ms, 0);
  EXPECT_FALSE(f.rs.follower(3)->is_caught_up(100, T + 1000, kLag));
  EXPECT_EQ(f.rs.high_watermark_candidate(local(100, 100), T + 1000), 100);
  // Its next fetch has the 100 the leader had at T+1000: caught up then, and
  // now the high watermark waits for it to join.
  f.rs.record_fetch(2, 120, 0, -1, 120, T + 2000);
  f.rs.record_fetch(3, 100, 0, -1, 120, T + 2000);
  EXPECT_EQ(f.rs.follower(3)->last_caught_up_time_ms, T + 1000);
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(120, 120), T + 2000));
  EXPECT_EQ(f.rs.high_watermark(), 100);
  // Not eligible (dead): no longer waited for.
  f.live.erase(3);
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(120, 120), T + 2000));
  EXPECT_EQ(f.rs.high_watermark(), 120);
  // Eligible but lagging past the lag: not waited for either.
  f.live.insert(3);
  EXPECT_EQ(f.rs.high_watermark_candidate(local(130, 130), T + 1000 + kLag), 100);
  EXPECT_EQ(f.rs.high_watermark_candidate(local(130, 130), T + 1000 + kLag + 1), 120);
}

TEST(ReplicaSet, PendingExpansionCountsTheNewMember) {
  Fixture f(/*min_isr=*/1, /*durable=*/false);
  f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1000);
  f.rs.record_fetch(3, 0, 0, -1, 0, T + 1000);
  auto c = f.rs.maybe_expand_isr(3);  // 0 >= HW 0 and >= epoch start 0
  ASSERT_TRUE(c);
  // 3 lags past the lag (so it would not count as "caught up"), but it is in
  // the maximal ISR: the high watermark waits for it.
  EXPECT_FALSE(f.rs.maybe_advance_high_watermark(local(100, 100), T + (1000 + 10 * kLag)));
  EXPECT_EQ(f.rs.high_watermark(), 0);
  f.rs.record_fetch(3, 50, 0, -1, 100, T + (1000 + 10 * kLag));
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 100), T + (1000 + 10 * kLag)));
  EXPECT_EQ(f.rs.high_watermark(), 50);
}

TEST(ReplicaSet, PendingShrinkStillWaitsForTheLeavingMember) {
  Fixture f(/*min_isr=*/1, /*durable=*/false);
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 0, 0, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1000);
  f.rs.record_fetch(3, 20, 0, -1, 100, T + 1000);
  ASSERT_TRUE(f.rs.maybe_shrink_isr(100, T + (1000 + kLag + 1)));
  EXPECT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 100), T + (1000 + kLag + 1)));
  EXPECT_EQ(f.rs.high_watermark(), 20);  // 3 still counts until the controller agrees
}

TEST(ReplicaSet, CheckAppendBeforeTheWrite) {
  Fixture f(/*min_isr=*/2);
  f.rs.become_leader(Fixture::state(5, 10, {1}), 0, 0, T + 0);
  EXPECT_EQ(f.rs.check_append(-1), ErrorCode::kNotEnoughReplicas);
  EXPECT_EQ(f.rs.check_append(1), ErrorCode::kNone);
  EXPECT_EQ(f.rs.check_append(0), ErrorCode::kNone);
  f.rs.become_leader(Fixture::state(5, 11, {1, 2}), 0, 0, T + 0);
  EXPECT_EQ(f.rs.check_append(-1), ErrorCode::kNone);
}

TEST(ReplicaSet, CheckEnoughReplicasReachOffset) {
  Fixture f(/*min_isr=*/2, /*durable=*/false);
  EXPECT_EQ(f.rs.check_enough_replicas_reach(1), (AckCheck{true, ErrorCode::kNotLeaderOrFollower}));
  f.rs.become_leader(Fixture::state(5, 10, {1, 2, 3}), 0, 0, T + 1000);
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 1000);
  f.rs.record_fetch(3, 50, 0, -1, 100, T + 1000);
  ASSERT_TRUE(f.rs.maybe_advance_high_watermark(local(100, 100), T + 1000));
  ASSERT_EQ(f.rs.high_watermark(), 50);
  EXPECT_EQ(f.rs.check_enough_replicas_reach(50), (AckCheck{true, ErrorCode::kNone}));
  EXPECT_EQ(f.rs.check_enough_replicas_reach(100), (AckCheck{false, ErrorCode::kNone}));  // wait
  // 3 and then 2 leave the ISR: committed data (<= 50) stays a success even
  // though the ISR is now below min.insync.replicas (Kafka would say 20).
  auto c = f.rs.maybe_shrink_isr(100, T + (1000 + kLag + 1));
  ASSERT_TRUE(c);
  ASSERT_EQ(f.rs.on_alter_partition_response(c->id, {ErrorCode::kNone, 1, 5, 11, {1, 2}}),
            AlterOutcome::kCommitted);
  EXPECT_EQ(f.rs.check_enough_replicas_reach(100), (AckCheck{false, ErrorCode::kNone}));  // ISR 2 = minISR
  f.rs.become_leader(Fixture::state(5, 12, {1}), 100, 0, T + 2000);
  EXPECT_EQ(f.rs.check_enough_replicas_reach(50), (AckCheck{true, ErrorCode::kNone}));
  // Not committed and the high watermark is frozen: NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  // for data consumers cannot see (the high watermark is below it).
  EXPECT_EQ(f.rs.check_enough_replicas_reach(100), (AckCheck{true, ErrorCode::kNotEnoughReplicasAfterAppend}));
  EXPECT_LT(f.rs.high_watermark(), 100);
  // A pending expansion back to minISR: wait rather than fail.
  f.rs.record_fetch(2, 100, 0, -1, 100, T + 2100);
  ASSERT_TRUE(f.rs.maybe_expand_isr(2));
  EXPECT_EQ(f.rs.check_enough_replicas_reach(100), (AckCheck{false, ErrorCode::kNone}));
}

class AlterPartitionAnswers : public ::testing::Test {
 protected:
  AlterPartitionAnswers() : f(1, false) {
    f.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
    f.rs.record_fetch(3, 0, 0, -1, 0, T + 1000);
    change = *f.rs.maybe_expand_isr(3);
  }
  Fixture f;
  IsrChange change;
};

TEST_F(AlterPartitionAnswers, SuccessCommitsTheReturnedState) {
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 5, 11, {3, 1, 2}}),
            AlterOutcome::kCommitted);
  EXPECT_EQ(f.rs.isr(), (V{1, 2, 3}));
  EXPECT_EQ(f.rs.partition_epoch(), 11);
  EXPECT_FALSE(f.rs.pending_change());
  // A duplicate answer for the same change is stale now.
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 5, 12, {1}}), AlterOutcome::kIgnored);
  EXPECT_EQ(f.rs.isr(), (V{1, 2, 3}));
}

TEST_F(AlterPartitionAnswers, SamePartitionEpochIsAnIdempotentSuccess) {
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 5, 10, {1, 2, 3}}),
            AlterOutcome::kCommitted);
  EXPECT_EQ(f.rs.partition_epoch(), 10);
}

TEST_F(AlterPartitionAnswers, StaleAnswersAreIgnored) {
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id + 1, {ErrorCode::kNone, 1, 5, 11, {1}}),
            AlterOutcome::kIgnored);
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 4, 11, {1}}), AlterOutcome::kIgnored);
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 6, 11, {1}}), AlterOutcome::kIgnored);
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 5, 9, {1}}), AlterOutcome::kIgnored);
  EXPECT_EQ(f.rs.isr(), (V{1, 2}));
  EXPECT_TRUE(f.rs.pending_change());  // still waiting for its real answer
  EXPECT_EQ(f.rs.pending_change()->id, change.id);
}

TEST_F(AlterPartitionAnswers, IneligibleReplicaResets) {
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, error(ErrorCode::kIneligibleReplica)), AlterOutcome::kReset);
  EXPECT_FALSE(f.rs.pending_change());
  EXPECT_EQ(f.rs.isr(), (V{1, 2}));
  EXPECT_EQ(f.rs.maximal_isr(), (V{1, 2}));
  auto again = f.rs.maybe_expand_isr(3);  // may be proposed again
  ASSERT_TRUE(again);
  EXPECT_GT(again->id, change.id);
  EXPECT_EQ(f.rs.on_alter_partition_response(again->id, error(ErrorCode::kOperationNotAttempted)), AlterOutcome::kReset);
}

TEST_F(AlterPartitionAnswers, FencedOrInvalidVersionWaitsForLeaderAndIsr) {
  for (ErrorCode e : {ErrorCode::kFencedLeaderEpoch, ErrorCode::kInvalidUpdateVersion}) {
    Fixture g(1, false);
    g.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
    g.rs.record_fetch(3, 0, 0, -1, 0, T + 1000);
    g.rs.record_fetch(2, 0, 0, -1, 0, T + 1000);
    auto c = *g.rs.maybe_expand_isr(3);
    EXPECT_EQ(g.rs.on_alter_partition_response(c.id, error(e)), AlterOutcome::kAwaitLeaderAndIsr) << static_cast<int>(e);
    EXPECT_TRUE(g.rs.awaiting_leader_and_isr());
    EXPECT_TRUE(g.rs.pending_change());
    EXPECT_FALSE(g.rs.maybe_shrink_isr(0, T + (1000 + 10 * kLag)));  // stopped
    // The next LeaderAndIsr clears it.
    g.rs.become_leader(Fixture::state(6, 12, {1, 2}), 0, 0, T + 5000);
    EXPECT_FALSE(g.rs.awaiting_leader_and_isr());
    EXPECT_FALSE(g.rs.pending_change());
    EXPECT_TRUE(g.rs.maybe_expand_isr(3));  // re-elected: 3's log end 0 >= epoch start 0
  }
  for (ErrorCode e : {ErrorCode::kUnknownTopicOrPartition, ErrorCode::kUnknownTopicId, ErrorCode::kInvalidRequest,
                      ErrorCode::kNewLeaderElected}) {
    Fixture g(1, false);
    g.rs.become_leader(Fixture::state(5, 10, {1, 2}), 0, 0, T + 1000);
    g.rs.record_fetch(3, 0, 0, -1, 0, T + 1000);
    auto c = *g.rs.maybe_expand_isr(3);
    EXPECT_EQ(g.rs.on_alter_partition_response(c.id, error(e)), AlterOutcome::kAwaitLeaderAndIsr) << static_cast<int>(e);
  }
}

TEST_F(AlterPartitionAnswers, OtherErrorsRetryTheSameChange) {
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, error(ErrorCode::kNotController)), AlterOutcome::kRetry);
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, error(ErrorCode::kRequestTimedOut)), AlterOutcome::kRetry);
  ASSERT_TRUE(f.rs.pending_change());
  EXPECT_EQ(f.rs.pending_change()->id, change.id);
  EXPECT_EQ(f.rs.on_alter_partition_response(change.id, {ErrorCode::kNone, 1, 5, 11, {1, 2, 3}}),
            AlterOutcome::kCommitted);
}

}  // namespace
}  // namespace spool::replica
