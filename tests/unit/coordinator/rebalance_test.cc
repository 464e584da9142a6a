// Rebalance timers on the manual clock: session expiry, rebalance timeout,
// CompletingRebalance timeout, initial rebalance delay, pending members.
#include "coordinator_test_support.h"

namespace spool::coordinator {
namespace {

using testing::bytes_of;

class Rebalance : public testing::CoordinatorTest {};

TEST_F(Rebalance, SessionExpiryRemovesMemberAndRebalances) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  join("g", a);
  ASSERT_TRUE(jb.ready());
  const std::string b = jb.get().member_id;
  sync("g", b, 2);
  sync("g", a, 2, {{a, bytes_of("A")}, {b, bytes_of("B")}});
  ASSERT_EQ(state_of("g"), "Stable");

  // a keeps heartbeating, b goes silent.
  for (int i = 0; i < 3; ++i) {
    advance(3000);
    EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, 2), ErrorCode::kNone) << i;
  }
  EXPECT_EQ(state_of("g"), "Stable");
  advance(1001);
  // 10.001 s > b's 10 s session: b is gone, the group rebalances.
  EXPECT_EQ(state_of("g"), "PreparingRebalance");
  EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 2), ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, 2), ErrorCode::kRebalanceInProgress);
  auto ja = join("g", a);
  ASSERT_TRUE(ja.ready());
  EXPECT_EQ(ja.get().generation_id, 3);
  EXPECT_EQ(ja.get().members.size(), 1u);
}

TEST_F(Rebalance, LastMemberExpiryEmptiesGroup) {
  auto [a, g1] = stable_single("g");
  advance(9999);
  EXPECT_EQ(state_of("g"), "Stable");
  advance(2);
  EXPECT_EQ(state_of("g"), "Empty");
  auto d = coord_->describe_groups({"g"});
  EXPECT_TRUE(d[0].members.empty());
}

// Timers run on the clock's monotonic scale: a wall-clock jump (an NTP step
// forward by a day) neither expires a session early nor keeps it alive.
TEST_F(Rebalance, WallClockJumpDoesNotMoveSessionTimers) {
  auto [a, g1] = stable_single("g");
  clock_->set_wall(clock_->wall_ms() + 24LL * 3600 * 1000);
  coord_->advance_clock(0);
  advance(9999);
  EXPECT_EQ(state_of("g"), "Stable");
  clock_->set_wall(clock_->wall_ms() - 48LL * 3600 * 1000);
  advance(2);
  EXPECT_EQ(state_of("g"), "Empty");
}

TEST_F(Rebalance, RebalanceTimeoutRemovesMembersThatDidNotRejoin) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "", {}, std::nullopt, 60000, 20000);
  EXPECT_FALSE(jb.ready());
  // a never rejoins but keeps its session alive by heartbeating.
  for (int i = 0; i < 6; ++i) {
    advance(5000);
    if (jb.ready()) break;
    coord_->heartbeat("g", a, std::nullopt, g1);
  }
  // Rebalance timeout = max(30 s of a, 20 s of b) = 30 s.
  ASSERT_TRUE(jb.ready());
  EXPECT_EQ(jb.get().error, ErrorCode::kNone);
  EXPECT_EQ(jb.get().leader_id, jb.get().member_id);
  EXPECT_EQ(jb.get().members.size(), 1u);
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, g1), ErrorCode::kUnknownMemberId);
}

TEST_F(Rebalance, CompletingRebalanceTimeoutRemovesMembersThatNeverSync) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  auto ja = join("g", a);
  ASSERT_TRUE(ja.ready() && jb.ready());
  const std::string b = jb.get().member_id;
  ASSERT_EQ(state_of("g"), "CompletingRebalance");
  // b syncs and waits; the leader never syncs and its session expires.
  auto sb = sync("g", b, 2);
  EXPECT_FALSE(sb.ready());
  advance(10001);
  ASSERT_TRUE(sb.ready());
  EXPECT_EQ(sb.get().error, ErrorCode::kRebalanceInProgress);
  EXPECT_EQ(state_of("g"), "PreparingRebalance");
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, 2), ErrorCode::kUnknownMemberId);
  auto jb2 = join("g", b);
  ASSERT_TRUE(jb2.ready());
  EXPECT_EQ(jb2.get().generation_id, 3);
  EXPECT_EQ(jb2.get().leader_id, b);
}

TEST_F(Rebalance, InitialRebalanceDelayIsExtendedByNewMembers) {
  GroupCoordinatorOptions o = options();
  o.group_initial_rebalance_delay_ms = 3000;
  start(o);
  auto ja = join("g", "", {}, std::nullopt, 10000, 10000);
  EXPECT_FALSE(ja.ready());
  advance(2000);
  auto jb = join("g", "", {}, std::nullopt, 10000, 10000);
  advance(1000);  // first delay over, but b arrived: wait another 3 s
  EXPECT_FALSE(ja.ready());
  advance(2999);
  EXPECT_FALSE(ja.ready());
  advance(1);
  ASSERT_TRUE(ja.ready() && jb.ready());
  EXPECT_EQ(ja.get().generation_id, 1);
  EXPECT_EQ(ja.get().members.size(), 2u);
}

TEST_F(Rebalance, InitialDelayNeverExceedsRebalanceTimeout) {
  GroupCoordinatorOptions o = options();
  o.group_initial_rebalance_delay_ms = 3000;
  start(o);
  auto ja = join("g", "", {}, std::nullopt, 10000, 7000);
  int joined = 1;
  int64_t waited = 0;
  while (!ja.ready() && waited < 20000) {
    advance(1000);
    waited += 1000;
    join("g", "", {}, std::nullopt, 10000, 7000);  // a new member every second
    ++joined;
  }
  ASSERT_TRUE(ja.ready());
  // 3 s initial delay, then extensions capped by the 7 s rebalance timeout.
  EXPECT_LE(waited, 7000);
  EXPECT_GE(waited, 3000);
}

TEST_F(Rebalance, PendingMemberThatNeverReturnsExpires) {
  auto [a, g1] = stable_single("g");
  auto pending = join("g", "", {}, std::nullopt, 10000, 30000, true);
  ASSERT_EQ(pending.get().error, ErrorCode::kMemberIdRequired);
  // A rebalance now waits for the pending member too...
  auto ja = join("g", a);
  EXPECT_FALSE(ja.ready());
  // ...until its session timeout passes.
  advance(10001);
  ASSERT_TRUE(ja.ready());
  EXPECT_EQ(ja.get().error, ErrorCode::kNone);
  EXPECT_EQ(ja.get().members.size(), 1u);
  EXPECT_EQ(join("g", pending.get().member_id, {}, std::nullopt, 10000, 30000, true).get().error,
            ErrorCode::kUnknownMemberId);
}

TEST_F(Rebalance, HeartbeatInCompletingRebalanceKeepsMemberAlive) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  join("g", a);
  const std::string b = jb.get().member_id;
  for (int i = 0; i < 5; ++i) {
    advance(4000);
    EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, 2), ErrorCode::kNone);
    EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 2), ErrorCode::kNone);
  }
  EXPECT_EQ(state_of("g"), "CompletingRebalance");
}

TEST_F(Rebalance, ShutdownAnswersPendingJoins) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  EXPECT_FALSE(jb.ready());
  coord_->shutdown();
  ASSERT_TRUE(jb.ready());
  EXPECT_EQ(jb.get().error, ErrorCode::kCoordinatorNotAvailable);
  EXPECT_EQ(*jb.calls, 1);
}

TEST_F(Rebalance, MemberThatHeartbeatsButNeverSyncsIsRemovedAfterRebalanceTimeout) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  auto ja = join("g", a);
  ASSERT_TRUE(ja.ready() && jb.ready());
  const std::string b = jb.get().member_id;
  ASSERT_EQ(sync("g", a, 2, {{a, bytes_of("A")}, {b, bytes_of("B")}}).get().error, ErrorCode::kNone);
  ASSERT_EQ(state_of("g"), "Stable");
  // b stays alive but never asks for its assignment.
  for (int i = 0; i < 5; ++i) {
    advance(5000);
    EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, 2), ErrorCode::kNone) << i;
    EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 2), ErrorCode::kNone) << i;
  }
  advance(5000);  // 30 s rebalance timeout since the join completed
  EXPECT_EQ(state_of("g"), "PreparingRebalance");
  EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 2), ErrorCode::kUnknownMemberId);
  auto ja2 = join("g", a);
  ASSERT_TRUE(ja2.ready());
  EXPECT_EQ(ja2.get().generation_id, 3);
  EXPECT_EQ(ja2.get().members.size(), 1u);
}

TEST_F(Rebalance, MembersThatAllSyncAreNotRemovedBySyncTimeout) {
  auto [a, g1] = stable_single("g");
  for (int i = 0; i < 10; ++i) {
    advance(5000);
    EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, g1), ErrorCode::kNone);
  }
  EXPECT_EQ(state_of("g"), "Stable");
}

}  // namespace
}  // namespace spool::coordinator
