// ElectLeaders (PREFERRED and UNCLEAN, every per-partition answer) and the
// preferred-leader balance check, on the in-memory store.
#include <gtest/gtest.h>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using protocol::ErrorCode;
using testing::ClusterFixture;
using V = std::vector<int32_t>;

class ControllerElections : public ClusterFixture {
 protected:
  void SetUp() override {
    for (int32_t b : {1, 2, 3}) start_broker(b);
    create_topic("t", {{0, {2, 3, 1}}, {1, {3, 1, 2}}, {2, {2}}});
    start_controller(1);
    start_controller(3);
    settle();
    ASSERT_TRUE(ctl(1).is_active());
  }
  std::vector<ElectionResult> elect(int32_t controller, ElectionType type, std::vector<TopicPartition> tps) {
    std::optional<std::vector<ElectionResult>> got;
    ctl(controller).elect_leaders(type, std::move(tps), [&](const std::vector<ElectionResult>& r) { got = r; });
    settle();
    EXPECT_TRUE(got);
    return got.value_or(std::vector<ElectionResult>{});
  }
  // Broker 2 goes away and comes back: t-0 (preferred 2) is led by 3 then.
  void bounce_broker_2() {
    nodes[2]->session->expire();
    settle();
    ASSERT_EQ(zk_state("t", 0).state.leader, 3);
    nodes[2]->session = std::make_unique<MemoryStore>(tree);
    register_broker(2);
    settle();
  }
};

TEST_F(ControllerElections, PreferredElectionAnswersPerPartition) {
  bounce_broker_2();
  const int32_t epoch_before = zk_state("t", 0).state.leader_epoch;
  // 2 is back but not in the ISR of t-0 yet: it cannot lead.
  auto r = elect(1, ElectionType::kPreferred,
                 {TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 9), TopicPartition("u", 0)});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].error, ErrorCode::kPreferredLeaderNotAvailable);
  EXPECT_NE(r[0].message.find("PreferredReplicaPartitionLeaderElectionStrategy"), std::string::npos) << r[0].message;
  EXPECT_EQ(r[1].error, ErrorCode::kElectionNotNeeded);  // t-1 is led by 3, its preferred replica
  EXPECT_EQ(r[2].error, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(r[3].error, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(zk_state("t", 0).state.leader_epoch, epoch_before);  // nothing written
  // Once 2 is in the ISR again the election moves leadership back.
  alter_isr(1, "t", 0, {3, 1, 2});
  r = elect(1, ElectionType::kPreferred, {TopicPartition("t", 0)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, ErrorCode::kNone);
  EXPECT_EQ(r[0].leader, 2);
  auto s = zk_state("t", 0).state;
  EXPECT_EQ(s.leader, 2);
  EXPECT_EQ(s.leader_epoch, epoch_before + 1);
  EXPECT_EQ(s.isr, (V{3, 1, 2}));  // the preferred strategy keeps the ISR
  // A second election changes nothing.
  r = elect(1, ElectionType::kPreferred, {TopicPartition("t", 0)});
  EXPECT_EQ(r[0].error, ErrorCode::kElectionNotNeeded);
  EXPECT_EQ(zk_state("t", 0).state.leader_epoch, epoch_before + 1);
}

TEST_F(ControllerElections, UncleanElectionOnlyForPartitionsWithoutALiveLeader) {
  // t-2's only replica dies: no leader. Unclean election has no live replica either.
  nodes[2]->session->expire();
  settle();
  auto r = elect(1, ElectionType::kUnclean, {TopicPartition("t", 0), TopicPartition("t", 2)});
  EXPECT_EQ(r[0].error, ErrorCode::kElectionNotNeeded);  // led by 3, alive
  EXPECT_EQ(r[1].error, ErrorCode::kEligibleLeadersNotAvailable);
  // t-1's ISR shrinks to 3 alone, then 3 dies: 1 is live but not in the ISR;
  // with unclean election off by config, only ElectLeaders UNCLEAN elects it.
  alter_isr(1, "t", 1, {3});
  nodes[3]->session->expire();
  settle();
  EXPECT_EQ(zk_state("t", 1).state.leader, -1);
  r = elect(1, ElectionType::kUnclean, {TopicPartition("t", 1)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, ErrorCode::kNone);
  EXPECT_EQ(r[0].leader, 1);
  EXPECT_EQ(zk_state("t", 1).state.isr, (V{1}));
}

TEST_F(ControllerElections, NotActiveAnswersNotControllerForEveryPartition) {
  auto r = elect(3, ElectionType::kPreferred, {TopicPartition("t", 0), TopicPartition("x", 1)});
  ASSERT_EQ(r.size(), 2u);
  for (const auto& e : r) EXPECT_EQ(e.error, ErrorCode::kNotController);
}

TEST_F(ControllerElections, BalanceCheckMovesLeadersBackToPreferredReplicas) {
  bounce_broker_2();
  alter_isr(1, "t", 0, {3, 1, 2});
  // Broker 2 prefers t-0 and t-2; t-0 is led by 3: 50% imbalance > 10%.
  ctl(1).trigger_leader_rebalance();
  settle();
  EXPECT_EQ(zk_state("t", 0).state.leader, 2);
  // Nothing to do afterwards: no new epoch.
  const int32_t epoch = zk_state("t", 0).state.leader_epoch;
  ctl(1).trigger_leader_rebalance();
  settle();
  EXPECT_EQ(zk_state("t", 0).state.leader_epoch, epoch);
}

TEST_F(ControllerElections, BalanceCheckWaitsForThePreferredReplicaToBeInSync) {
  bounce_broker_2();  // 2 is live but not in t-0's ISR
  const int32_t epoch = zk_state("t", 0).state.leader_epoch;
  ctl(1).trigger_leader_rebalance();
  settle();
  EXPECT_EQ(zk_state("t", 0).state.leader, 3);
  EXPECT_EQ(zk_state("t", 0).state.leader_epoch, epoch);
}

}  // namespace
}  // namespace spool::cluster::controller
