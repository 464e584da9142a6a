// Every election strategy and each of its branches (Kafka's Election and
// PartitionLeaderElectionAlgorithms).
#include "cluster/controller/election.h"

#include <gtest/gtest.h>

namespace spool::cluster::controller {
namespace {

using V = std::vector<int32_t>;
using S = std::set<int32_t>;

TEST(ElectInitial, FirstLiveReplicaLeadsAndIsrIsLiveReplicasInAssignmentOrder) {
  auto r = elect_initial(V{3, 1, 2}, S{1, 2});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 1);
  EXPECT_EQ(r->isr, (V{1, 2}));
  EXPECT_FALSE(r->unclean);
}

TEST(ElectInitial, AllLive) {
  auto r = elect_initial(V{2, 3, 1}, S{1, 2, 3});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{2, {2, 3, 1}, false}));
}

TEST(ElectInitial, NoLiveReplicaIsNone) {
  EXPECT_FALSE(elect_initial(V{1, 2}, S{3}));
  EXPECT_FALSE(elect_initial(V{}, S{1}));
}

TEST(ElectOffline, FirstLiveIsrReplicaInAssignmentOrderNotIsrOrder) {
  // ISR order is [3,2]; assignment order decides: 2 comes before 3.
  auto r = elect_offline(V{1, 2, 3}, V{3, 2}, S{2, 3}, false);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 2);
  EXPECT_EQ(r->isr, (V{3, 2}));  // old ISR filtered, ISR order kept
  EXPECT_FALSE(r->unclean);
}

TEST(ElectOffline, IsrShrinksToLiveMembers) {
  auto r = elect_offline(V{1, 2, 3}, V{1, 2, 3}, S{2, 3}, false);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{2, {2, 3}, false}));
}

TEST(ElectOffline, LiveReplicaOutsideIsrIsSkippedForAnIsrOne) {
  auto r = elect_offline(V{1, 2, 3}, V{1, 3}, S{2, 3}, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{3, {3}, false}));  // clean: 3 is in the ISR
}

TEST(ElectOffline, AllIsrDeadWithUncleanOffIsNone) {
  EXPECT_FALSE(elect_offline(V{1, 2, 3}, V{1}, S{2, 3}, false));
}

TEST(ElectOffline, AllIsrDeadWithUncleanOnTakesFirstLiveReplicaAlone) {
  auto r = elect_offline(V{1, 3, 2}, V{1}, S{2, 3}, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{3, {3}, true}));
}

TEST(ElectOffline, NothingLiveIsNoneEvenUnclean) {
  EXPECT_FALSE(elect_offline(V{1, 2}, V{1, 2}, S{}, true));
  EXPECT_FALSE(elect_offline(V{1, 2}, V{1, 2}, S{5}, true));  // live, but not a replica
}

TEST(ElectOffline, IsrMemberNotInAssignmentCannotLead) {
  // 9 is in the ISR and live, but not assigned.
  EXPECT_FALSE(elect_offline(V{1, 2}, V{9}, S{9}, false));
}

TEST(ElectReassign, FirstTargetReplicaLiveAndInIsrIsrUnchanged) {
  auto r = elect_reassign(V{4, 5, 6}, V{1, 5, 6, 4}, S{5, 6, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{5, {1, 5, 6, 4}, false}));
}

TEST(ElectReassign, NoTargetInIsrIsNone) {
  EXPECT_FALSE(elect_reassign(V{4, 5}, V{1, 2}, S{1, 2, 4, 5}));
  EXPECT_FALSE(elect_reassign(V{4, 5}, V{4, 5}, S{1}));
}

TEST(ElectPreferred, PreferredLiveAndInIsrLeads) {
  auto r = elect_preferred(V{2, 1, 3}, V{1, 2}, S{1, 2, 3});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{2, {1, 2}, false}));
}

TEST(ElectPreferred, PreferredDeadIsNoneEvenIfOthersCould) {
  EXPECT_FALSE(elect_preferred(V{2, 1, 3}, V{1, 2, 3}, S{1, 3}));
}

TEST(ElectPreferred, PreferredOutOfIsrIsNone) {
  EXPECT_FALSE(elect_preferred(V{2, 1}, V{1}, S{1, 2}));
}

TEST(ElectPreferred, EmptyAssignmentIsNone) { EXPECT_FALSE(elect_preferred(V{}, V{1}, S{1})); }

TEST(ElectControlledShutdown, SkipsShuttingDownAndDropsThemFromIsr) {
  auto r = elect_controlled_shutdown(V{1, 2, 3}, V{1, 2, 3}, S{1, 2, 3}, S{1});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ElectionOutcome{2, {2, 3}, false}));
}

TEST(ElectControlledShutdown, DeadReplicaIsSkipped) {
  auto r = elect_controlled_shutdown(V{1, 2, 3}, V{1, 2, 3}, S{1, 3}, S{1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leader, 3);
  EXPECT_EQ(r->isr, (V{2, 3}));  // only shutting-down brokers leave the ISR
}

TEST(ElectControlledShutdown, OnlyShuttingDownInIsrIsNone) {
  EXPECT_FALSE(elect_controlled_shutdown(V{1, 2}, V{1}, S{1, 2}, S{1}));
  EXPECT_FALSE(elect_controlled_shutdown(V{1, 2}, V{1, 2}, S{1, 2}, S{1, 2}));
}

}  // namespace
}  // namespace spool::cluster::controller
