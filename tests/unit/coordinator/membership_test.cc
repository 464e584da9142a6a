// JoinGroup / SyncGroup / Heartbeat / LeaveGroup state transitions.
#include "coordinator_test_support.h"

namespace spool::coordinator {
namespace {

using testing::bytes_of;
using testing::subscription;

class Membership : public testing::CoordinatorTest {};

TEST_F(Membership, FirstJoinWithMemberIdRequiredThenRejoin) {
  auto first = join("g", "", {}, std::nullopt, 10000, 30000, /*require_known=*/true);
  ASSERT_TRUE(first.ready());
  EXPECT_EQ(first.get().error, ErrorCode::kMemberIdRequired);
  const std::string id = first.get().member_id;
  EXPECT_EQ(id.rfind("client-", 0), 0u) << id;
  EXPECT_EQ(state_of("g"), "Empty");

  auto second = join("g", id, {}, std::nullopt, 10000, 30000, true);
  ASSERT_TRUE(second.ready());
  EXPECT_EQ(second.get().error, ErrorCode::kNone);
  EXPECT_EQ(second.get().member_id, id);
  EXPECT_EQ(second.get().leader_id, id);
  EXPECT_EQ(second.get().generation_id, 1);
  EXPECT_EQ(second.get().protocol_name, "range");
  ASSERT_EQ(second.get().members.size(), 1u);
  EXPECT_EQ(second.get().members[0].metadata, subscription({"t"}));
  EXPECT_EQ(state_of("g"), "CompletingRebalance");

  auto s = sync("g", id, 1, {{id, bytes_of("assign")}});
  ASSERT_TRUE(s.ready());
  EXPECT_EQ(s.get().error, ErrorCode::kNone);
  EXPECT_EQ(s.get().assignment, bytes_of("assign"));
  EXPECT_EQ(state_of("g"), "Stable");
  // The assignment is persisted as the group metadata record before the answer.
  bool found = false;
  for (const auto& r : log_.records(coord_->partition_for("g"))) {
    auto k = decode_key(ByteSpan(r.key));
    if (k.is_ok() && std::holds_alternative<GroupRecordKey>(*k) && r.value) {
      auto v = decode_group_value(ByteSpan(*r.value));
      ASSERT_TRUE(v.is_ok());
      if (v->generation == 1 && v->members.size() == 1) {
        EXPECT_EQ(v->members[0].assignment, bytes_of("assign"));
        found = true;
      }
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(coord_->heartbeat("g", id, std::nullopt, 1), ErrorCode::kNone);
}

TEST_F(Membership, UnknownMemberJoinAndRequestValidation) {
  EXPECT_EQ(join("", "").get().error, ErrorCode::kInvalidGroupId);
  EXPECT_EQ(join("g", "nobody").get().error, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(join("g", "", {}, std::nullopt, 5999).get().error, ErrorCode::kInvalidSessionTimeout);
  EXPECT_EQ(join("g", "", {}, std::nullopt, 1800001).get().error, ErrorCode::kInvalidSessionTimeout);
  EXPECT_EQ(join("g", "", {{}}, std::nullopt, 10000, 30000, false, "").get().error,
            ErrorCode::kInconsistentGroupProtocol);
  EXPECT_EQ(sync("g", "x", 1).get().error, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coord_->heartbeat("g", "x", std::nullopt, 1), ErrorCode::kUnknownMemberId);
  EXPECT_EQ(coord_->heartbeat("", "x", std::nullopt, 1), ErrorCode::kInvalidGroupId);
}

TEST_F(Membership, SessionTimeoutBoundsAreInclusive) {
  EXPECT_EQ(join("g1", "", {}, std::nullopt, 6000).get().error, ErrorCode::kNone);
  EXPECT_EQ(join("g2", "", {}, std::nullopt, 1800000).get().error, ErrorCode::kNone);
}

TEST_F(Membership, SecondMemberRebalancesAndLeaderGetsBothSubscriptions) {
  auto [a, gen1] = stable_single("g");
  EXPECT_EQ(gen1, 1);
  auto jb = join("g", "", {{"range", subscription({"u"})}});
  EXPECT_FALSE(jb.ready());  // waits for the old member to rejoin
  EXPECT_EQ(state_of("g"), "PreparingRebalance");
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, gen1), ErrorCode::kRebalanceInProgress);

  auto ja = join("g", a);
  ASSERT_TRUE(ja.ready());
  ASSERT_TRUE(jb.ready());
  EXPECT_EQ(ja.get().generation_id, 2);
  EXPECT_EQ(jb.get().generation_id, 2);
  EXPECT_EQ(ja.get().leader_id, a);
  EXPECT_EQ(jb.get().leader_id, a);
  ASSERT_EQ(ja.get().members.size(), 2u);
  EXPECT_TRUE(jb.get().members.empty());
  const std::string b = jb.get().member_id;
  for (const auto& m : ja.get().members) {
    EXPECT_EQ(m.metadata, subscription({m.member_id == a ? "t" : "u"}));
  }

  // The follower's sync waits for the leader's.
  auto sb = sync("g", b, 2);
  EXPECT_FALSE(sb.ready());
  EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 2), ErrorCode::kNone);
  auto sa = sync("g", a, 2, {{a, bytes_of("A")}, {b, bytes_of("B")}, {"ghost", bytes_of("G")}});
  ASSERT_TRUE(sa.ready());
  ASSERT_TRUE(sb.ready());
  EXPECT_EQ(sa.get().assignment, bytes_of("A"));
  EXPECT_EQ(sb.get().assignment, bytes_of("B"));
  EXPECT_EQ(state_of("g"), "Stable");
  // A late sync in Stable returns the current assignment.
  EXPECT_EQ(sync("g", b, 2).get().assignment, bytes_of("B"));
  EXPECT_EQ(sync("g", b, 1).get().error, ErrorCode::kIllegalGeneration);
  EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 1), ErrorCode::kIllegalGeneration);
}

TEST_F(Membership, ThirdMemberJoiningStableGroupBumpsGeneration) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  auto ja = join("g", a);
  ASSERT_TRUE(jb.ready());
  const std::string b = jb.get().member_id;
  sync("g", b, 2);
  sync("g", a, 2, {{a, bytes_of("A")}, {b, bytes_of("B")}});
  ASSERT_EQ(state_of("g"), "Stable");

  auto jc = join("g", "");
  EXPECT_FALSE(jc.ready());
  EXPECT_EQ(state_of("g"), "PreparingRebalance");
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, 2), ErrorCode::kRebalanceInProgress);
  EXPECT_EQ(coord_->heartbeat("g", b, std::nullopt, 2), ErrorCode::kRebalanceInProgress);
  // Sync of the old generation during the rebalance.
  EXPECT_EQ(sync("g", a, 2).get().error, ErrorCode::kRebalanceInProgress);
  auto ja2 = join("g", a);
  EXPECT_FALSE(ja2.ready());
  auto jb2 = join("g", b);
  ASSERT_TRUE(ja2.ready() && jb2.ready() && jc.ready());
  EXPECT_EQ(jc.get().generation_id, 3);
  EXPECT_EQ(ja2.get().members.size(), 3u);
  EXPECT_EQ(state_of("g"), "CompletingRebalance");
  // Commits while completing the rebalance are refused.
  auto errs = commit("g", a, 3, {testing::entry("t", 0, 5)});
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].second, ErrorCode::kRebalanceInProgress);
}

TEST_F(Membership, LeaderRejoiningStableGroupStartsRebalance) {
  auto [a, g1] = stable_single("g");
  auto again = join("g", a);
  // a is the leader: a leader's rejoin triggers a rebalance (Kafka).
  EXPECT_TRUE(again.ready());
  EXPECT_EQ(again.get().generation_id, 2);
  EXPECT_EQ(state_of("g"), "CompletingRebalance");
}

TEST_F(Membership, ProtocolVote) {
  // Group with three members and different preference lists.
  auto pa = std::vector<std::pair<std::string, Bytes>>{{"cooperative-sticky", bytes_of("a1")}, {"range", bytes_of("a2")}};
  auto pb = std::vector<std::pair<std::string, Bytes>>{{"roundrobin", bytes_of("b1")}, {"range", bytes_of("b2")},
                                                       {"cooperative-sticky", bytes_of("b3")}};
  auto pc = std::vector<std::pair<std::string, Bytes>>{{"range", bytes_of("c1")}, {"cooperative-sticky", bytes_of("c2")}};
  GroupCoordinatorOptions o = options();
  o.group_initial_rebalance_delay_ms = 100;
  start(o);
  auto ja = join("g", "", pa);
  auto jb = join("g", "", pb);
  auto jc = join("g", "", pc);
  advance(100);
  advance(100);
  ASSERT_TRUE(ja.ready() && jb.ready() && jc.ready());
  // Candidates: range, cooperative-sticky (roundrobin is not common).
  // Votes: a -> cooperative-sticky, b -> range, c -> range: range wins.
  EXPECT_EQ(ja.get().protocol_name, "range");
  const auto& leader_answer = ja.get().leader_id == ja.get().member_id   ? ja.get()
                              : jb.get().leader_id == jb.get().member_id ? jb.get()
                                                                         : jc.get();
  ASSERT_EQ(leader_answer.members.size(), 3u);
  for (const auto& m : leader_answer.members) {
    if (m.member_id == jb.get().member_id) {
      EXPECT_EQ(m.metadata, bytes_of("b2"));
    }
    if (m.member_id == ja.get().member_id) {
      EXPECT_EQ(m.metadata, bytes_of("a2"));
    }
  }
}

TEST_F(Membership, ProtocolVoteTieFollowsLeaderPreference) {
  GroupCoordinatorOptions o = options();
  o.group_initial_rebalance_delay_ms = 100;
  start(o);
  auto ja = join("g", "", {{"roundrobin", bytes_of("x")}, {"range", bytes_of("y")}});
  auto jb = join("g", "", {{"range", bytes_of("x")}, {"roundrobin", bytes_of("y")}});
  advance(100);
  advance(100);
  ASSERT_TRUE(ja.ready() && jb.ready());
  // One vote each; the leader (first member) prefers roundrobin.
  EXPECT_EQ(ja.get().leader_id, ja.get().member_id);
  EXPECT_EQ(ja.get().protocol_name, "roundrobin");
}

TEST_F(Membership, InconsistentGroupProtocol) {
  stable_single("g");
  auto other_type = join("g", "", {}, std::nullopt, 10000, 30000, false, "connect");
  EXPECT_EQ(other_type.get().error, ErrorCode::kInconsistentGroupProtocol);
  auto no_common = join("g", "", {{"roundrobin", bytes_of("x")}});
  EXPECT_EQ(no_common.get().error, ErrorCode::kInconsistentGroupProtocol);
  EXPECT_EQ(state_of("g"), "Stable");
}

TEST_F(Membership, LeaveGroupBatchWithPerMemberErrors) {
  auto [a, g1] = stable_single("g");
  LeaveGroupResult r = coord_->leave_group("g", {{a, std::nullopt}, {"ghost", std::nullopt}});
  EXPECT_EQ(r.error, ErrorCode::kNone);
  ASSERT_EQ(r.members.size(), 2u);
  EXPECT_EQ(r.members[0].second, ErrorCode::kNone);
  EXPECT_EQ(r.members[1].second, ErrorCode::kUnknownMemberId);
  // The only member left: the rebalance completes at once and the group is Empty.
  EXPECT_EQ(state_of("g"), "Empty");
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, g1), ErrorCode::kUnknownMemberId);
  // Unknown group: per-member UNKNOWN_MEMBER_ID.
  LeaveGroupResult r2 = coord_->leave_group("nogroup", {{"x", std::nullopt}});
  EXPECT_EQ(r2.error, ErrorCode::kNone);
  ASSERT_EQ(r2.members.size(), 1u);
  EXPECT_EQ(r2.members[0].second, ErrorCode::kUnknownMemberId);
}

TEST_F(Membership, LeaveDuringRebalanceCompletesJoin) {
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  EXPECT_FALSE(jb.ready());
  coord_->leave_group("g", {{a, std::nullopt}});
  ASSERT_TRUE(jb.ready());
  EXPECT_EQ(jb.get().error, ErrorCode::kNone);
  EXPECT_EQ(jb.get().leader_id, jb.get().member_id);
  EXPECT_EQ(jb.get().generation_id, 2);
}

TEST_F(Membership, GroupMaxSize) {
  GroupCoordinatorOptions o = options();
  o.group_max_size = 1;
  start(o);
  auto [a, g1] = stable_single("g");
  auto jb = join("g", "");
  ASSERT_TRUE(jb.ready());
  EXPECT_EQ(jb.get().error, ErrorCode::kGroupMaxSizeReached);
  EXPECT_EQ(state_of("g"), "Stable");
}

TEST_F(Membership, StaticMemberRestartKeepsAssignmentWithoutRebalance) {
  auto j = join("g", "", {}, std::string("inst"));
  ASSERT_EQ(j.get().error, ErrorCode::kNone);
  const std::string old_id = j.get().member_id;
  EXPECT_EQ(old_id.rfind("inst-", 0), 0u);
  ASSERT_EQ(sync("g", old_id, 1, {{old_id, bytes_of("A")}}, std::string("inst")).get().error, ErrorCode::kNone);

  // Restart: unknown member id, same instance id and protocols.
  auto again = join("g", "", {}, std::string("inst"));
  ASSERT_TRUE(again.ready());
  EXPECT_EQ(again.get().error, ErrorCode::kNone);
  const std::string new_id = again.get().member_id;
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(again.get().generation_id, 1);
  EXPECT_EQ(state_of("g"), "Stable");
  // The old leader id is reported so the member does not reassign.
  EXPECT_EQ(again.get().leader_id, old_id);
  EXPECT_EQ(sync("g", new_id, 1, {}, std::string("inst")).get().assignment, bytes_of("A"));

  // The stale incarnation is fenced everywhere.
  EXPECT_EQ(coord_->heartbeat("g", old_id, std::string("inst"), 1), ErrorCode::kFencedInstanceId);
  EXPECT_EQ(sync("g", old_id, 1, {}, std::string("inst")).get().error, ErrorCode::kFencedInstanceId);
  EXPECT_EQ(join("g", old_id, {}, std::string("inst")).get().error, ErrorCode::kFencedInstanceId);
  OffsetCommitParams cp;
  cp.group_id = "g";
  cp.member_id = old_id;
  cp.group_instance_id = "inst";
  cp.generation_id = 1;
  cp.offsets = {testing::entry("t", 0, 1)};
  testing::Answer<PartitionErrors> ca;
  coord_->commit_offsets(cp, ca.callback());
  ASSERT_TRUE(ca.ready());
  EXPECT_EQ(ca.get().at(0).second, ErrorCode::kFencedInstanceId);
  LeaveGroupResult r = coord_->leave_group("g", {{old_id, std::string("inst")}});
  EXPECT_EQ(r.members.at(0).second, ErrorCode::kFencedInstanceId);
  EXPECT_EQ(coord_->heartbeat("g", new_id, std::string("inst"), 1), ErrorCode::kNone);
}

TEST_F(Membership, StaticMemberWithNewProtocolsTriggersRebalance) {
  auto j = join("g", "", {}, std::string("inst"));
  const std::string old_id = j.get().member_id;
  sync("g", old_id, 1, {{old_id, bytes_of("A")}}, std::string("inst"));
  // Protocols must stay compatible with the group (range is common), but
  // the member now prefers roundrobin: the selected protocol changes.
  auto again = join("g", "", {{"roundrobin", bytes_of("x")}, {"range", bytes_of("y")}}, std::string("inst"));
  ASSERT_TRUE(again.ready());
  EXPECT_EQ(again.get().generation_id, 2);
  EXPECT_EQ(again.get().protocol_name, "roundrobin");
}

TEST_F(Membership, AdminRemovalByInstanceId) {
  auto j = join("g", "", {}, std::string("inst"));
  sync("g", j.get().member_id, 1, {{j.get().member_id, bytes_of("A")}}, std::string("inst"));
  LeaveGroupResult r = coord_->leave_group("g", {{"", std::string("inst")}, {"", std::string("nope")}});
  EXPECT_EQ(r.members.at(0).second, ErrorCode::kNone);
  EXPECT_EQ(r.members.at(1).second, ErrorCode::kUnknownMemberId);
  EXPECT_EQ(state_of("g"), "Empty");
}

TEST_F(Membership, LeaderSyncIsAnsweredOnlyOnceTheAssignmentIsDurable) {
  auto j = join("g", "");
  const std::string a = j.get().member_id;
  log_.hold(true);
  auto s = sync("g", a, 1, {{a, bytes_of("A")}});
  EXPECT_FALSE(s.ready());
  EXPECT_EQ(state_of("g"), "CompletingRebalance");
  log_.hold(false);
  log_.release();
  ASSERT_TRUE(s.ready());
  EXPECT_EQ(s.get().assignment, bytes_of("A"));
  EXPECT_EQ(state_of("g"), "Stable");
}

TEST_F(Membership, FailedAssignmentStoreFailsSyncAndRebalances) {
  auto j = join("g", "");
  const std::string a = j.get().member_id;
  log_.fail_next_append(Status::error("full", static_cast<int16_t>(ErrorCode::kNotEnoughReplicas)));
  auto s = sync("g", a, 1, {{a, bytes_of("A")}});
  ASSERT_TRUE(s.ready());
  EXPECT_EQ(s.get().error, ErrorCode::kCoordinatorNotAvailable);
  EXPECT_TRUE(s.get().assignment.empty());
  EXPECT_NE(state_of("g"), "Stable");
}

TEST_F(Membership, StaticRestartAnswersAfterPersistingTheNewMemberId) {
  auto j = join("g", "", {}, std::string("inst"));
  const std::string old_id = j.get().member_id;
  sync("g", old_id, 1, {{old_id, bytes_of("A")}}, std::string("inst"));
  log_.hold(true);
  auto again = join("g", "", {}, std::string("inst"));
  EXPECT_FALSE(again.ready());
  log_.hold(false);
  log_.release();
  ASSERT_TRUE(again.ready());
  EXPECT_EQ(again.get().error, ErrorCode::kNone);
  // A failed store undoes the replacement: the old id stays valid.
  log_.fail_next_append(Status::error("x", static_cast<int16_t>(ErrorCode::kKafkaStorageError)));
  auto third = join("g", "", {}, std::string("inst"));
  ASSERT_TRUE(third.ready());
  EXPECT_EQ(third.get().error, ErrorCode::kNotCoordinator);
  EXPECT_EQ(coord_->heartbeat("g", again.get().member_id, std::string("inst"), 1), ErrorCode::kNone);
}

TEST_F(Membership, StaticMemberThatDoesNotRejoinStaysInTheGroup) {
  auto js = join("g", "", {}, std::string("inst"), 60000, 5000);
  const std::string s_id = js.get().member_id;
  sync("g", s_id, 1, {{s_id, bytes_of("S")}}, std::string("inst"));
  auto jd = join("g", "", {}, std::nullopt, 60000, 5000);
  EXPECT_FALSE(jd.ready());
  advance(5000);  // rebalance timeout: the static member did not rejoin
  ASSERT_TRUE(jd.ready());
  EXPECT_EQ(jd.get().error, ErrorCode::kNone);
  EXPECT_EQ(jd.get().leader_id, jd.get().member_id);
  EXPECT_EQ(jd.get().members.size(), 2u);
}

}  // namespace
}  // namespace spool::coordinator
