// FollowerReplica: Kafka's lastCaughtUpTimeMs, caught-up and reset rules,
// exact values.
#include <gtest/gtest.h>

#include "replica/follower_replica.h"

namespace spool::replica {
namespace {

constexpr int64_t kLag = 30000;

TEST(FollowerReplica, LastCaughtUpWhenTheFetchReachesTheLeaderEnd) {
  FollowerReplica f;
  f.update_fetch_state(100, 0, 1000, 100, 7);
  EXPECT_EQ(f.last_caught_up_time_ms, 1000);
  EXPECT_EQ(f.log_end_offset, 100);
  EXPECT_EQ(f.synced_offset, 100);
  EXPECT_EQ(f.last_fetch_time_ms, 1000);
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, 100);
  EXPECT_EQ(f.broker_epoch, 7);
  // Beyond the leader's end (a racing truncation) also counts.
  f.update_fetch_state(120, 0, 1500, 110, 7);
  EXPECT_EQ(f.last_caught_up_time_ms, 1500);
}

TEST(FollowerReplica, LastCaughtUpIsThePreviousFetchWhenItReachedTheEndAsItStoodThen) {
  FollowerReplica f;
  f.update_fetch_state(50, 0, 1000, 100, -1);  // behind: baseline 0 from the start (< 50)
  EXPECT_EQ(f.last_caught_up_time_ms, 0);  // 50 >= 0 (initial baseline): caught up at last fetch time 0
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, 100);
  // The leader grew to 130 meanwhile, but the follower now has the 100 the
  // leader had at 1000: it was caught up at 1000.
  f.update_fetch_state(100, 0, 2000, 130, -1);
  EXPECT_EQ(f.last_caught_up_time_ms, 1000);
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, 130);
  // Not even the previous end (130) reached: unchanged.
  f.update_fetch_state(120, 0, 3000, 160, -1);
  EXPECT_EQ(f.last_caught_up_time_ms, 1000);
  EXPECT_EQ(f.last_fetch_time_ms, 3000);
  // The recorded leader end never decreases (a fetch served from a leader
  // end read lower than an earlier one).
  f.update_fetch_state(125, 0, 3500, 150, -1);
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, 160);
  EXPECT_EQ(f.last_caught_up_time_ms, 1000);
  // The time never goes backwards either.
  f.update_fetch_state(160, 0, 900, 160, -1);
  EXPECT_EQ(f.last_caught_up_time_ms, 1000);
}

TEST(FollowerReplica, IsCaughtUp) {
  FollowerReplica f;
  f.log_end_offset = 100;
  f.last_caught_up_time_ms = 1000;
  EXPECT_TRUE(f.is_caught_up(100, 999999, kLag));          // same end: always
  EXPECT_TRUE(f.is_caught_up(200, 1000 + kLag, kLag));     // exactly the lag
  EXPECT_FALSE(f.is_caught_up(200, 1000 + kLag + 1, kLag));
}

TEST(FollowerReplica, ResetOnNewLeaderForgetsOffsets) {
  FollowerReplica f;
  f.update_fetch_state(100, 5, 1000, 100, 3);
  f.reset(5000, 120, /*new_leader=*/true, /*in_sync=*/true);
  EXPECT_EQ(f.log_end_offset, -1);
  EXPECT_EQ(f.synced_offset, -1);
  EXPECT_EQ(f.log_start_offset, -1);
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, -1);
  EXPECT_EQ(f.last_fetch_time_ms, 0);
  EXPECT_EQ(f.last_caught_up_time_ms, 5000);
  EXPECT_EQ(f.broker_epoch, -1);
  f.reset(6000, 120, true, false);
  EXPECT_EQ(f.last_caught_up_time_ms, 0);
}

TEST(FollowerReplica, ResetOnReelectionKeepsOffsets) {
  FollowerReplica f;
  f.update_fetch_state(100, 5, 1000, 100, 3);
  f.reset(5000, 120, /*new_leader=*/false, /*in_sync=*/true);
  EXPECT_EQ(f.log_end_offset, 100);
  EXPECT_EQ(f.log_start_offset, 5);
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, 120);
  EXPECT_EQ(f.last_fetch_time_ms, 5000);
  EXPECT_EQ(f.last_caught_up_time_ms, 5000);
  EXPECT_EQ(f.broker_epoch, 3);
  f.reset(6000, 130, false, false);
  EXPECT_EQ(f.last_fetch_time_ms, 0);
  EXPECT_EQ(f.last_caught_up_time_ms, 0);
  EXPECT_EQ(f.last_fetch_leader_log_end_offset, 130);
}

}  // namespace
}  // namespace spool::replica
