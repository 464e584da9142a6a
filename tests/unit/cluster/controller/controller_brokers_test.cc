// Broker membership: death by session expiry, the last ISR member, unclean
// election, bounce detection by a higher czxid, new brokers.
#include <gtest/gtest.h>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using testing::ClusterFixture;
using testing::of_kind;
using V = std::vector<int32_t>;

class ControllerBrokers : public ClusterFixture {
 protected:
  void SetUp() override {
    for (int32_t b : {1, 2, 3}) start_broker(b);
    // t-0 led by 2; t-1 led by 3; 1 is the controller.
    create_topic("t", {{0, {2, 3, 1}}, {1, {3, 1, 2}}});
    start_controller(1);
    settle();
    ASSERT_TRUE(ctl(1).is_active());
    ASSERT_EQ(zk_state("t", 0).state.leader, 2);
    ASSERT_EQ(zk_state("t", 1).state.leader, 3);
  }

  // Leader `leader` shrinks the ISR of topic-p to `isr` through AlterPartition.
  void shrink(const std::string& topic, int32_t p, int32_t leader, V isr, int32_t controller = 1) {
    auto cur = zk_state(topic, p);
    AlterPartitionRequest req;
    req.broker_id = leader;
    req.broker_epoch = broker_epoch(leader);
    req.partitions.push_back(AlterPartitionItem{TopicPartition(topic, p), cur.state.leader_epoch, isr,
                                                LeaderRecoveryState::kRecovered, cur.version});
    std::optional<AlterPartitionResult> got;
    ctl(controller).alter_partition(req, [&](const AlterPartitionResult& r) { got = r; });
    settle();
    ASSERT_TRUE(got);
    ASSERT_EQ(got->partitions.at(0).error, protocol::ErrorCode::kNone);
  }
};

TEST_F(ControllerBrokers, DeadLeaderIsReplacedByFirstLiveIsrReplicaInAssignmentOrder) {
  auto before = zk_state("t", 0);
  ASSERT_EQ(before.state.leader_epoch, 0);
  wire(1).clear();
  nodes[2]->session->expire();
  settle();
  auto after = zk_state("t", 0);
  EXPECT_EQ(after.state.leader, 3);  // assignment [2,3,1]: 3 before 1
  EXPECT_EQ(after.state.leader_epoch, 1);  // exactly one bump
  EXPECT_EQ(after.state.isr, (V{3, 1}));
  EXPECT_EQ(after.version, before.version + 1);
  // t-1 (2 only followed): 2 leaves the ISR, leader stays, epoch + 1.
  auto t1 = zk_state("t", 1);
  EXPECT_EQ(t1.state.leader, 3);
  EXPECT_EQ(t1.state.leader_epoch, 1);
  EXPECT_EQ(t1.state.isr, (V{3, 1}));
  EXPECT_FALSE(nodes[1]->channel->has_broker(2));
  EXPECT_EQ(ctl(1).context().brokers.count(2), 0u);
  // The new leader got LeaderAndIsr with the new epoch.
  auto lais = of_kind<LeaderAndIsrRequest>(wire(1).sent(3));
  ASSERT_FALSE(lais.empty());
  auto* p = testing::find_partition(lais.front(), TopicPartition("t", 0));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->leader, 3);
  EXPECT_EQ(p->leader_epoch, 1);
  EXPECT_EQ(p->isr, (V{3, 1}));
  EXPECT_EQ(p->partition_epoch, after.version);
  // Every UpdateMetadata after the death lists only live brokers.
  for (const auto& um : of_kind<UpdateMetadataRequest>(wire(1).sent(1))) {
    for (const auto& b : um.live_brokers) EXPECT_NE(b.id, 2);
  }
}

TEST_F(ControllerBrokers, LastIsrMemberIsKeptAndThePartitionStaysOfflineWithUncleanOff) {
  create_topic("solo", {{0, {2, 3}}});
  settle();
  shrink("solo", 0, 2, {2});
  ASSERT_EQ(zk_state("solo", 0).state.isr, (V{2}));
  nodes[2]->session->expire();
  settle();
  auto st = zk_state("solo", 0);
  EXPECT_EQ(st.state.leader, -1);
  EXPECT_EQ(st.state.isr, (V{2}));  // never empty
  EXPECT_EQ(st.state.leader_recovery_state, cluster::LeaderRecoveryState::kRecovered);
  EXPECT_EQ(ctl(1).context().partition_state(TopicPartition("solo", 0)), PartitionState::kOffline);
  // A new broker does not help: 3 is live but not in the ISR.
  start_broker(4);
  settle();
  EXPECT_EQ(zk_state("solo", 0).state.leader, -1);
}

TEST_F(ControllerBrokers, UncleanElectionBringsTheAllIsrDeadPartitionBackRecovering) {
  create_topic("solo", {{0, {2, 3}}});
  settle();
  shrink("solo", 0, 2, {2});
  nodes[2]->session->expire();
  settle();
  auto offline = zk_state("solo", 0);
  ASSERT_EQ(offline.state.leader, -1);
  // The topic override turns unclean election on.
  nodes[1]->has_override = true;
  nodes[1]->unclean_for_all = true;
  ctl(1).unclean_leader_election_enabled(std::string("solo"));
  settle();
  auto st = zk_state("solo", 0);
  EXPECT_EQ(st.state.leader, 3);
  EXPECT_EQ(st.state.isr, (V{3}));
  EXPECT_EQ(st.state.leader_epoch, offline.state.leader_epoch + 1);
  EXPECT_EQ(st.state.leader_recovery_state, cluster::LeaderRecoveryState::kRecovering);
  auto lais = of_kind<LeaderAndIsrRequest>(wire(1).sent(3));
  ASSERT_FALSE(lais.empty());
  auto* p = testing::find_partition(lais.back(), TopicPartition("solo", 0));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->leader_recovery_state, LeaderRecoveryState::kRecovering);
}

TEST_F(ControllerBrokers, UncleanBrokerDefaultElectsAtDeathTime) {
  // A controller whose broker default is unclean=true.
  ctl(1).shutdown();
  start_broker(4);
  create_topic("solo", {{0, {2, 3}}});
  start_controller(4, /*unclean_default=*/true);
  nodes[1]->controller.reset();
  ASSERT_TRUE(admin.remove("/controller").is_ok());
  settle();
  ASSERT_TRUE(ctl(4).is_active());
  shrink("solo", 0, 2, {2}, 4);
  nodes[2]->session->expire();
  settle();
  auto st = zk_state("solo", 0);
  EXPECT_EQ(st.state.leader, 3);
  EXPECT_EQ(st.state.isr, (V{3}));
}

TEST_F(ControllerBrokers, TopicOverrideFalseBeatsBrokerDefaultTrue) {
  ctl(1).shutdown();
  nodes[1]->controller.reset();
  start_broker(4);
  create_topic("solo", {{0, {2, 3}}});
  nodes[4]->has_override = true;
  nodes[4]->unclean_for_all = false;
  start_controller(4, /*unclean_default=*/true);
  ASSERT_TRUE(admin.remove("/controller").is_ok());
  settle();
  ASSERT_TRUE(ctl(4).is_active());
  shrink("solo", 0, 2, {2}, 4);
  nodes[2]->session->expire();
  settle();
  EXPECT_EQ(zk_state("solo", 0).state.leader, -1);
}

TEST_F(ControllerBrokers, BounceIsDetectedByAHigherCzxid) {
  const int64_t old_epoch = broker_epoch(3);
  // Broker 3 restarts faster than the controller notices: by the time the
  // watch is processed /brokers/ids/3 exists again with a new czxid.
  nodes[3]->session->expire();
  ASSERT_TRUE(nodes[3]->session->reconnect().is_ok());
  const int64_t new_epoch = register_broker(3);
  ASSERT_GT(new_epoch, old_epoch);
  wire(1).clear();
  settle();
  EXPECT_EQ(ctl(1).context().brokers.at(3).epoch, new_epoch);
  // Failure then startup: t-1 (led by 3) moved to 1, the next live ISR
  // replica in [3,1,2]; 3 is back in no ISR until it catches up.
  auto t1 = zk_state("t", 1);
  EXPECT_EQ(t1.state.leader, 1);
  EXPECT_EQ(t1.state.isr, (V{1, 2}));
  EXPECT_EQ(t1.state.leader_epoch, 1);
  // The re-registered broker got its partitions (LeaderAndIsr) with its new epoch.
  auto sent = wire(1).sent(3);
  auto lais = of_kind<LeaderAndIsrRequest>(sent);
  ASSERT_FALSE(lais.empty());
  EXPECT_EQ(lais.back().broker_epoch, new_epoch);
  bool has_t0 = false, has_t1 = false;
  for (const auto& r : lais) {
    has_t0 |= testing::find_partition(r, TopicPartition("t", 0)) != nullptr;
    has_t1 |= testing::find_partition(r, TopicPartition("t", 1)) != nullptr;
  }
  EXPECT_TRUE(has_t0);
  EXPECT_TRUE(has_t1);
  // UpdateMetadata to the bounced broker with every partition state.
  auto ums = of_kind<UpdateMetadataRequest>(sent);
  ASSERT_FALSE(ums.empty());
  bool full = false;
  for (const auto& um : ums) full |= um.partition_states.size() == 2;
  EXPECT_TRUE(full);
}

TEST_F(ControllerBrokers, SameCzxidIsNotABounce) {
  wire(1).clear();
  tree->deliver();
  ctl(1).events().put(BrokerChangeEvent{});
  settle();
  EXPECT_TRUE(wire(1).all().empty());  // nothing changed, nothing sent
}

TEST_F(ControllerBrokers, NewBrokerGetsMetadataAndItsReplicasAndCanLeadOfflinePartitions) {
  create_topic("late", {{0, {5}}});
  settle();
  EXPECT_EQ(zk_state("late", 0).version, -1);  // no live replica: stays New
  EXPECT_EQ(ctl(1).context().partition_state(TopicPartition("late", 0)), PartitionState::kNew);
  wire(1).clear();
  start_broker(5);
  settle();
  auto st = zk_state("late", 0);
  EXPECT_EQ(st.state.leader, 5);
  EXPECT_EQ(st.state.isr, (V{5}));
  EXPECT_EQ(st.state.leader_epoch, 0);
  auto k = wire(1).kinds(5);
  ASSERT_FALSE(k.empty());
  EXPECT_EQ(k.front(), "UpdateMetadata");
  // Existing brokers learn about 5.
  auto ums = of_kind<UpdateMetadataRequest>(wire(1).sent(2));
  ASSERT_FALSE(ums.empty());
  bool saw5 = false;
  for (const auto& b : ums.front().live_brokers) saw5 |= b.id == 5;
  EXPECT_TRUE(saw5);
}

TEST_F(ControllerBrokers, MalformedBrokerZnodeIsIgnored) {
  auto s9 = std::make_unique<MemoryStore>(tree);
  ASSERT_TRUE(s9->create("/brokers/ids/9", "{not json", CreateMode::kEphemeral).is_ok());
  ASSERT_TRUE(s9->create("/brokers/ids/x", "{}", CreateMode::kEphemeral).is_ok());
  settle();
  EXPECT_EQ(ctl(1).context().brokers.count(9), 0u);
  EXPECT_EQ(ctl(1).context().brokers.size(), 3u);
  EXPECT_TRUE(ctl(1).is_active());
}

}  // namespace
}  // namespace spool::cluster::controller
