// Controller election, zombie fencing, failover order, session expiry.
#include <gtest/gtest.h>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using testing::ClusterFixture;
using testing::of_kind;

class ControllerElection : public ClusterFixture {};

TEST_F(ControllerElection, FirstControllerCreatesEpochZnodeAndGetsEpochOne) {
  ASSERT_FALSE(exists("/controller_epoch"));
  start_broker(1);
  start_broker(2);
  start_controller(1);
  settle();
  start_controller(2);
  settle();
  EXPECT_TRUE(ctl(1).is_active());
  EXPECT_EQ(ctl(1).epoch(), 1);
  EXPECT_FALSE(ctl(2).is_active());
  EXPECT_EQ(ctl(2).active_controller_id(), 1);
  EXPECT_EQ(data("/controller_epoch"), "1");
  EXPECT_EQ(admin.exists("/controller_epoch")->version, 1);  // created "0" at version 0, then set
  auto reg = decode_controller(data("/controller"));
  ASSERT_TRUE(reg.is_ok());
  EXPECT_EQ(reg->broker_id, 1);
  EXPECT_EQ(reg->timestamp_ms, 424242);
  EXPECT_NE(admin.exists("/controller")->ephemeral_owner, 0);
  EXPECT_EQ(ctl(1).context().epoch_zk_version, 1);
}

TEST_F(ControllerElection, ExistingEpochIsIncremented) {
  ASSERT_TRUE(admin.create("/controller_epoch", "41").is_ok());
  start_broker(1);
  start_controller(1);
  settle();
  EXPECT_EQ(ctl(1).epoch(), 42);
  EXPECT_EQ(data("/controller_epoch"), "42");
}

TEST_F(ControllerElection, MalformedEpochZnodeFailsTheElectionWithoutCrashing) {
  ASSERT_TRUE(admin.create("/controller_epoch", "not a number").is_ok());
  start_broker(1);
  start_controller(1);
  settle();
  EXPECT_FALSE(ctl(1).is_active());
  EXPECT_FALSE(exists("/controller"));
}

TEST_F(ControllerElection, ControllerDeathElectsTheNextOneWithAHigherEpoch) {
  start_broker(1);
  start_broker(2);
  start_controller(1);
  start_controller(2);
  settle();
  ASSERT_TRUE(ctl(1).is_active());
  nodes[1]->session->expire();  // broker 1 dies: /controller and /brokers/ids/1 go
  settle();
  EXPECT_FALSE(ctl(1).is_active());
  EXPECT_TRUE(ctl(2).is_active());
  EXPECT_EQ(ctl(2).epoch(), 2);
  EXPECT_EQ(data("/controller_epoch"), "2");
  EXPECT_EQ(ctl(2).context().brokers.count(1), 0u);
}

TEST_F(ControllerElection, ZombieControllerWriteIsRefusedAndItResigns) {
  start_broker(1);
  start_broker(2);
  start_broker(3);
  create_topic("t", {{0, {1, 2, 3}}});
  start_controller(1);
  settle();
  ASSERT_TRUE(ctl(1).is_active());
  auto before = zk_state("t", 0);
  ASSERT_EQ(before.state.isr, (std::vector<int32_t>{1, 2, 3}));

  // Broker 1 is cut off: its /controller goes (as after a session problem)
  // but it has not heard yet. Broker 2 is elected with epoch 2.
  ASSERT_TRUE(admin.remove("/controller").is_ok());
  start_controller(2);
  ctl(2).events().run_pending();  // only broker 2 runs; no watch delivered to 1
  ASSERT_TRUE(ctl(2).is_active());
  ASSERT_EQ(ctl(2).epoch(), 2);
  ASSERT_TRUE(ctl(1).is_active());  // the zombie still believes

  // The zombie processes an ISR shrink: its fenced write must fail.
  AlterPartitionRequest req;
  req.broker_id = 1;
  req.broker_epoch = broker_epoch(1);
  req.partitions.push_back(AlterPartitionItem{TopicPartition("t", 0), 0, {1, 2}, LeaderRecoveryState::kRecovered, 0});
  std::optional<AlterPartitionResult> got;
  ctl(1).alter_partition(req, [&](const AlterPartitionResult& r) { got = r; });
  ctl(1).events().run_pending();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->error, protocol::ErrorCode::kNotController);
  EXPECT_FALSE(ctl(1).is_active());
  EXPECT_EQ(ctl(1).active_controller_id(), 2);
  EXPECT_TRUE(ctl(1).context().brokers.empty());  // resigned: context emptied
  auto after = zk_state("t", 0);
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.state.isr, (std::vector<int32_t>{1, 2, 3}));
  settle();
  EXPECT_TRUE(ctl(2).is_active());
  EXPECT_FALSE(ctl(1).is_active());
}

TEST_F(ControllerElection, FailoverSendsUpdateMetadataBeforeAnyLeaderAndIsrAndElectsOfflinePartitions) {
  // Written by an earlier controller (epoch 1): broker 1 led t-0 and is dead.
  ASSERT_TRUE(admin.create("/controller_epoch", "1").is_ok());
  start_broker(2);
  start_broker(3);
  create_topic("t", {{0, {1, 2, 3}}, {1, {2, 3, 1}}});
  write_state("t", 0, 1, 4, {1, 2, 3});
  write_state("t", 1, 2, 7, {2, 3, 1});
  start_controller(2);
  settle();
  ASSERT_TRUE(ctl(2).is_active());
  EXPECT_EQ(ctl(2).epoch(), 2);
  for (int32_t b : {2, 3}) {
    auto k = wire(2).kinds(b);
    ASSERT_FALSE(k.empty()) << b;
    EXPECT_EQ(k.front(), "UpdateMetadata") << b;
    auto first_lai = std::find(k.begin(), k.end(), "LeaderAndIsr");
    ASSERT_NE(first_lai, k.end()) << b;
    // The first UpdateMetadata lists the live brokers and no partitions.
    auto um = std::get<UpdateMetadataRequest>(wire(2).sent(b).front());
    EXPECT_EQ(um.controller_id, 2);
    EXPECT_EQ(um.controller_epoch, 2);
    EXPECT_EQ(um.broker_epoch, broker_epoch(b));
    ASSERT_EQ(um.live_brokers.size(), 2u);
    EXPECT_EQ(um.live_brokers[0].id, 2);
    EXPECT_EQ(um.live_brokers[0].endpoints[0].host, "broker2");
    EXPECT_EQ(um.live_brokers[0].rack, std::optional<std::string>("rack0"));
    EXPECT_TRUE(um.partition_states.empty());
  }
  EXPECT_TRUE(wire(2).kinds(1).empty());  // dead broker: no channel
  // t-0: broker 1 leaves the ISR (epoch 5, leader -1), then the offline
  // election picks 2 (first live ISR replica in assignment order): epoch 6.
  auto s0 = zk_state("t", 0);
  EXPECT_EQ(s0.state.leader, 2);
  EXPECT_EQ(s0.state.leader_epoch, 6);
  EXPECT_EQ(s0.state.isr, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(s0.state.controller_epoch, 2);
  EXPECT_EQ(s0.version, 2);
  // t-1 keeps its leader; 1 leaves its ISR (epoch 8).
  auto s1 = zk_state("t", 1);
  EXPECT_EQ(s1.state.leader, 2);
  EXPECT_EQ(s1.state.leader_epoch, 8);
  EXPECT_EQ(s1.state.isr, (std::vector<int32_t>{2, 3}));
  // Online replicas got the cached same-epoch state first (t-1 at epoch 7).
  auto lais = of_kind<LeaderAndIsrRequest>(wire(2).sent(3));
  ASSERT_FALSE(lais.empty());
  auto* p = testing::find_partition(lais.front(), TopicPartition("t", 1));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->leader_epoch, 7);
  EXPECT_EQ(p->replicas, (std::vector<int32_t>{2, 3, 1}));
  EXPECT_FALSE(p->is_new);
  // And the last LeaderAndIsr for t-0 carries the elected state.
  const LeaderAndIsrPartition* last = nullptr;
  for (const auto& r : lais) {
    if (auto* q = testing::find_partition(r, TopicPartition("t", 0))) last = q;
  }
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->leader, 2);
  EXPECT_EQ(last->leader_epoch, 6);
  EXPECT_EQ(last->partition_epoch, 2);
  EXPECT_EQ(last->controller_epoch, 2);
  EXPECT_EQ(ctl(2).context().partition_state(TopicPartition("t", 0)), PartitionState::kOnline);
  EXPECT_EQ(ctl(2).context().replica_state(PartitionReplica{TopicPartition("t", 0), 1}), ReplicaState::kOffline);
}

TEST_F(ControllerElection, SessionExpiryResignsAndReelectsOnTheNewSession) {
  start_broker(1);
  start_broker(2);
  create_topic("t", {{0, {1, 2}}});
  start_controller(1);
  settle();
  ASSERT_TRUE(ctl(1).is_active());
  nodes[1]->session->expire();
  settle();
  EXPECT_FALSE(ctl(1).is_active());
  EXPECT_TRUE(ctl(1).context().assignment.empty());
  EXPECT_FALSE(nodes[1]->channel->has_broker(2));
  // The broker reconnects and re-registers, then tells the controller.
  ASSERT_TRUE(nodes[1]->session->reconnect().is_ok());
  register_broker(1);
  ctl(1).session_reestablished();
  settle();
  EXPECT_TRUE(ctl(1).is_active());
  EXPECT_EQ(ctl(1).epoch(), 2);
  EXPECT_EQ(ctl(1).context().brokers.size(), 2u);
}

TEST_F(ControllerElection, ShutdownResignsAndAnswersLaterRequestsNotController) {
  start_broker(1);
  start_controller(1);
  settle();
  ctl(1).shutdown();
  EXPECT_FALSE(ctl(1).is_active());
  std::optional<ControlledShutdownResult> got;
  ctl(1).controlled_shutdown(1, broker_epoch(1), [&](const ControlledShutdownResult& r) { got = r; });
  ASSERT_TRUE(got);
  EXPECT_EQ(got->error, protocol::ErrorCode::kNotController);
}

TEST_F(ControllerElection, ThreadedControllerElectsAndStops) {
  auto threaded = std::make_shared<MemoryTree>(MemoryTree::Delivery::kThread);
  MemoryStore adm(threaded);
  for (const auto& p : zk_paths::persistent_paths()) ASSERT_TRUE(ensure_path(adm, p).is_ok());
  MemoryStore s1(threaded);
  BrokerRegistration reg;
  reg.id = 1;
  reg.endpoints.push_back(EndPoint{"PLAINTEXT", "h", 9092, "PLAINTEXT"});
  ASSERT_TRUE(s1.create("/brokers/ids/1", encode_broker(reg), CreateMode::kEphemeral).is_ok());
  testing::FakeBrokerTransport t;
  t.set_auto_answer(true);
  QueuedBrokerChannel ch(t);
  ControllerConfig cfg;
  cfg.broker_id = 1;
  Controller c(cfg, s1, ch);
  c.start();
  for (int i = 0; i < 500 && !c.is_active(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(c.is_active());
  EXPECT_EQ(c.epoch(), 1);
  c.shutdown();
  EXPECT_FALSE(c.is_active());
}

}  // namespace
}  // namespace spool::cluster::controller
