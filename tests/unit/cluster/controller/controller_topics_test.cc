// Topic creation, partition additions and deletion through the znodes.
#include <gtest/gtest.h>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using testing::ClusterFixture;
using testing::of_kind;
using V = std::vector<int32_t>;

class ControllerTopics : public ClusterFixture {
 protected:
  void SetUp() override {
    for (int32_t b : {1, 2, 3}) start_broker(b);
    start_controller(1);
    settle();
    ASSERT_TRUE(ctl(1).is_active());
    wire(1).clear();
  }
};

TEST_F(ControllerTopics, NewTopicGetsFirstLiveReplicaAsLeaderAndLiveReplicasAsIsr) {
  nodes[2]->session->expire();  // 2 is dead when the topic appears
  settle();
  wire(1).clear();
  create_topic("orders", {{0, {2, 3, 1}}, {1, {1, 2, 3}}});
  settle();
  auto s0 = zk_state("orders", 0);
  EXPECT_EQ(s0.version, 0);
  EXPECT_EQ(s0.state.leader, 3);
  EXPECT_EQ(s0.state.isr, (V{3, 1}));
  EXPECT_EQ(s0.state.leader_epoch, 0);
  EXPECT_EQ(s0.state.controller_epoch, 1);
  auto s1 = zk_state("orders", 1);
  EXPECT_EQ(s1.state.leader, 1);
  EXPECT_EQ(s1.state.isr, (V{1, 3}));
  EXPECT_EQ(data("/brokers/topics/orders/partitions"), "");
  EXPECT_EQ(ctl(1).context().topic_ids.at("orders"), testing::topic_id_of("orders"));
  // LeaderAndIsr with is_new to the ISR, UpdateMetadata after it.
  auto sent3 = wire(1).sent(3);
  auto lais = of_kind<LeaderAndIsrRequest>(sent3);
  ASSERT_FALSE(lais.empty());
  auto* p = testing::find_partition(lais.front(), TopicPartition("orders", 0));
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->is_new);
  EXPECT_EQ(p->replicas, (V{2, 3, 1}));
  EXPECT_EQ(p->partition_epoch, 0);
  ASSERT_EQ(lais.front().topic_ids.size(), 1u);
  EXPECT_EQ(lais.front().topic_ids[0].second, testing::topic_id_of("orders"));
  ASSERT_EQ(lais.front().live_leaders.size(), 2u);  // leaders 1 and 3
  EXPECT_EQ(lais.front().live_leaders[1].host_name, "broker3");
  EXPECT_EQ(lais.front().live_leaders[1].port, 9093);
  auto k = wire(1).kinds(3);
  auto lai_at = std::find(k.begin(), k.end(), "LeaderAndIsr") - k.begin();
  auto um_at = std::find(k.begin() + lai_at, k.end(), "UpdateMetadata") - k.begin();
  EXPECT_LT(lai_at, um_at);
  auto ums = of_kind<UpdateMetadataRequest>(wire(1).sent(1));
  ASSERT_FALSE(ums.empty());
  ASSERT_EQ(ums.back().partition_states.size(), 2u);
  EXPECT_EQ(ums.back().partition_states[0].offline_replicas, (V{2}));
  EXPECT_EQ(ctl(1).context().replica_state(PartitionReplica{TopicPartition("orders", 0), 3}), ReplicaState::kOnline);
}

TEST_F(ControllerTopics, AddedPartitionsAreCreatedOthersUntouched) {
  create_topic("t", {{0, {1, 2}}});
  settle();
  auto before = zk_state("t", 0);
  set_assignment("t", {{0, {1, 2}}, {1, {2, 3}}, {2, {3, 1}}});
  settle();
  EXPECT_EQ(zk_state("t", 0).version, before.version);
  auto s1 = zk_state("t", 1);
  EXPECT_EQ(s1.state.leader, 2);
  EXPECT_EQ(s1.state.isr, (V{2, 3}));
  auto s2 = zk_state("t", 2);
  EXPECT_EQ(s2.state.leader, 3);
  EXPECT_EQ(ctl(1).context().assignment.size(), 3u);
  // The watch is re-armed: a second addition works too.
  set_assignment("t", {{0, {1, 2}}, {1, {2, 3}}, {2, {3, 1}}, {3, {1}}});
  settle();
  EXPECT_EQ(zk_state("t", 3).state.leader, 1);
}

TEST_F(ControllerTopics, DeletionStopsEveryReplicaThenRemovesTheZnodes) {
  create_topic("gone", {{0, {1, 2}}, {1, {2, 3}}});
  ASSERT_TRUE(admin.create("/config/topics/gone", "{\"version\":1,\"config\":{}}").is_ok() ||
              ensure_path(admin, "/config/topics/gone").is_ok());
  settle();
  wire(1).set_auto_answer(false);
  wire(1).clear();
  ASSERT_TRUE(admin.create("/admin/delete_topics/gone", "").is_ok());
  settle();
  EXPECT_TRUE(ctl(1).context().queued_for_deletion("gone"));
  // Broker 2 hosts both partitions: first UpdateMetadata with leader -2.
  ASSERT_TRUE(wire(1).in_flight(2));
  auto first = wire(1).sent(2);
  ASSERT_EQ(first.size(), 1u);
  auto um = std::get<UpdateMetadataRequest>(first[0]);
  ASSERT_EQ(um.partition_states.size(), 2u);
  EXPECT_EQ(um.partition_states[0].leader, kLeaderDuringDelete);
  // Drive broker 2's queue by hand: StopReplica(delete=false) then (delete=true).
  std::vector<StopReplicaRequest> stops;
  for (int i = 0; i < 10 && wire(1).in_flight(2); ++i) {
    auto sent = wire(1).sent(2);
    if (std::holds_alternative<StopReplicaRequest>(sent.back())) stops.push_back(std::get<StopReplicaRequest>(sent.back()));
    ASSERT_TRUE(wire(1).answer(2));
    settle();
  }
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_FALSE(stops[0].partitions[0].delete_partition);
  EXPECT_TRUE(stops[1].partitions[0].delete_partition);
  EXPECT_EQ(stops[1].partitions.size(), 2u);
  EXPECT_EQ(stops[1].partitions[0].leader_epoch, -2);
  // Brokers 1 and 3 have not answered: nothing removed yet.
  EXPECT_TRUE(exists("/brokers/topics/gone"));
  EXPECT_EQ(ctl(1).context().replica_state(PartitionReplica{TopicPartition("gone", 1), 2}),
            ReplicaState::kDeletionSuccessful);
  EXPECT_EQ(ctl(1).context().replica_state(PartitionReplica{TopicPartition("gone", 1), 3}),
            ReplicaState::kDeletionStarted);
  for (int32_t b : {1, 3}) {
    for (int i = 0; i < 10 && wire(1).in_flight(b); ++i) {
      ASSERT_TRUE(wire(1).answer(b));
      settle();
    }
  }
  EXPECT_FALSE(exists("/brokers/topics/gone"));
  EXPECT_FALSE(exists("/admin/delete_topics/gone"));
  EXPECT_FALSE(exists("/config/topics/gone"));
  EXPECT_FALSE(ctl(1).context().has_topic("gone"));
  EXPECT_TRUE(ctl(1).context().assignment.empty());
}

TEST_F(ControllerTopics, FailedStopReplicaWaitsForTheBrokerToComeBack) {
  create_topic("gone", {{0, {2, 3}}});
  settle();
  wire(1).set_auto_answer(false);
  ASSERT_TRUE(admin.create("/admin/delete_topics/gone", "").is_ok());
  settle();
  // Broker 3 answers every request; its StopReplica(delete) fails.
  for (int i = 0; i < 10 && wire(1).in_flight(3); ++i) {
    auto sent = wire(1).sent(3);
    ControllerResponse resp;
    if (std::holds_alternative<StopReplicaRequest>(sent.back()) &&
        std::get<StopReplicaRequest>(sent.back()).partitions[0].delete_partition) {
      resp.partition_errors.push_back(PartitionError{TopicPartition("gone", 0), protocol::ErrorCode::kKafkaStorageError});
    }
    ASSERT_TRUE(wire(1).answer(3, resp));
    settle();
  }
  for (int i = 0; i < 10 && wire(1).in_flight(2); ++i) {
    ASSERT_TRUE(wire(1).answer(2));
    settle();
  }
  EXPECT_EQ(ctl(1).context().replica_state(PartitionReplica{TopicPartition("gone", 0), 3}),
            ReplicaState::kDeletionIneligible);
  EXPECT_TRUE(exists("/brokers/topics/gone"));
  EXPECT_TRUE(ctl(1).context().topics_ineligible_for_deletion.count("gone"));
  // Broker 3 restarts: deletion resumes and completes.
  wire(1).set_auto_answer(true);
  nodes[3]->session->expire();
  settle();
  ASSERT_TRUE(nodes[3]->session->reconnect().is_ok());
  register_broker(3);
  settle();
  EXPECT_FALSE(exists("/brokers/topics/gone"));
  EXPECT_FALSE(ctl(1).context().has_topic("gone"));
}

TEST_F(ControllerTopics, DeletingAnUnknownTopicOnlyRemovesTheRequest) {
  ASSERT_TRUE(admin.create("/admin/delete_topics/nope", "").is_ok());
  settle();
  EXPECT_FALSE(exists("/admin/delete_topics/nope"));
}

TEST_F(ControllerTopics, DeletionResumesOnFailover) {
  create_topic("gone", {{0, {2, 3}}});
  settle();
  // Controller 1 goes away before handling the request.
  ctl(1).shutdown();
  nodes[1]->controller.reset();
  ASSERT_TRUE(admin.remove("/controller").is_ok());
  ASSERT_TRUE(admin.create("/admin/delete_topics/gone", "").is_ok());
  start_controller(2);
  settle();
  ASSERT_TRUE(ctl(2).is_active());
  EXPECT_FALSE(exists("/brokers/topics/gone"));
  EXPECT_FALSE(exists("/admin/delete_topics/gone"));
}

TEST_F(ControllerTopics, TopicWithoutIdGetsOneWrittenBack) {
  ASSERT_TRUE(admin.create("/brokers/topics/old", "{\"version\":1,\"partitions\":{\"0\":[1,2]}}").is_ok());
  settle();
  auto dec = decode_topic_assignment("old", data("/brokers/topics/old"));
  ASSERT_TRUE(dec.is_ok());
  ASSERT_TRUE(dec->topic_id.has_value());
  EXPECT_NE(*dec->topic_id, TopicId{});
  EXPECT_EQ(dec->partitions.at(0).replicas, (V{1, 2}));
  EXPECT_EQ(ctl(1).context().topic_ids.at("old"), *dec->topic_id);
  EXPECT_EQ(zk_state("old", 0).state.leader, 1);
}

TEST_F(ControllerTopics, MalformedTopicZnodeIsSkipped) {
  ASSERT_TRUE(admin.create("/brokers/topics/bad", "{\"version\":3,\"partitions\":{\"0\":[1,1]}}").is_ok());
  create_topic("good", {{0, {1}}});
  settle();
  EXPECT_FALSE(ctl(1).context().has_topic("bad"));
  EXPECT_EQ(zk_state("good", 0).state.leader, 1);
  EXPECT_TRUE(ctl(1).is_active());
}

}  // namespace
}  // namespace spool::cluster::controller
