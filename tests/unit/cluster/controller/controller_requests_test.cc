// AlterPartition (every error, in Kafka's order) and ControlledShutdown.
#include <gtest/gtest.h>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using protocol::ErrorCode;
using testing::ClusterFixture;
using testing::of_kind;
using V = std::vector<int32_t>;

class ControllerRequests : public ClusterFixture {
 protected:
  void SetUp() override {
    for (int32_t b : {1, 2, 3}) start_broker(b);
    create_topic("t", {{0, {2, 3, 1}}, {1, {3, 1, 2}}, {2, {2}}});
    start_controller(1);
    start_controller(3);
    settle();
    ASSERT_TRUE(ctl(1).is_active());
    wire(1).clear();
  }

  AlterPartitionItem item(int32_t p, V isr, int32_t leader_epoch_delta = 0, int32_t partition_epoch_delta = 0,
                          LeaderRecoveryState rs = LeaderRecoveryState::kRecovered) {
    auto cur = zk_state("t", p);
    return AlterPartitionItem{TopicPartition("t", p), cur.state.leader_epoch + leader_epoch_delta, std::move(isr), rs,
                              cur.version + partition_epoch_delta};
  }
  AlterPartitionResult alter(int32_t controller, int32_t broker, std::vector<AlterPartitionItem> items,
                             std::optional<int64_t> epoch = std::nullopt) {
    AlterPartitionRequest req;
    req.broker_id = broker;
    req.broker_epoch = epoch.value_or(broker_epoch(broker));
    req.partitions = std::move(items);
    std::optional<AlterPartitionResult> got;
    ctl(controller).alter_partition(req, [&](const AlterPartitionResult& r) { got = r; });
    settle();
    EXPECT_TRUE(got);
    return got.value_or(AlterPartitionResult{ErrorCode::kUnknownServerError, {}});
  }
  ErrorCode one(int32_t p, AlterPartitionItem it, int32_t broker = 2) {
    auto r = alter(1, broker, {std::move(it)});
    EXPECT_EQ(r.error, ErrorCode::kNone);
    return r.partitions.empty() ? ErrorCode::kUnknownServerError : r.partitions[0].error;
  }
};

TEST_F(ControllerRequests, AlterPartitionNotActiveIsNotController) {
  auto r = alter(3, 2, {item(0, {2, 3})});
  EXPECT_EQ(r.error, ErrorCode::kNotController);
  EXPECT_TRUE(r.partitions.empty());
}

TEST_F(ControllerRequests, AlterPartitionUnknownBrokerOrWrongEpochIsStaleBrokerEpoch) {
  EXPECT_EQ(alter(1, 9, {item(0, {2, 3})}, 5).error, ErrorCode::kStaleBrokerEpoch);
  EXPECT_EQ(alter(1, 2, {item(0, {2, 3})}, broker_epoch(2) - 1).error, ErrorCode::kStaleBrokerEpoch);
  EXPECT_EQ(alter(1, 2, {item(0, {2, 3})}, broker_epoch(2) + 1).error, ErrorCode::kStaleBrokerEpoch);
  EXPECT_EQ(zk_state("t", 0).state.isr, (V{2, 3, 1}));
}

TEST_F(ControllerRequests, AlterPartitionPerPartitionErrorsInKafkasOrder) {
  // Unknown partition.
  AlterPartitionItem unknown{TopicPartition("nope", 0), 0, {2}, LeaderRecoveryState::kRecovered, 0};
  EXPECT_EQ(one(0, unknown), ErrorCode::kUnknownTopicOrPartition);
  // A newer leader or partition epoch than ours: NOT_CONTROLLER (checked
  // before everything else, even with a stale partition epoch).
  EXPECT_EQ(one(0, item(0, {2, 3}, +1, 0)), ErrorCode::kNotController);
  EXPECT_EQ(one(0, item(0, {2, 3}, 0, +1)), ErrorCode::kNotController);
  EXPECT_EQ(one(0, item(0, {2, 3}, +1, -1)), ErrorCode::kNotController);
  // A valid shrink (the lower-leader-epoch case has its own test below).
  ASSERT_EQ(one(0, item(0, {2, 3})), ErrorCode::kNone);  // ISR [2,3], partition epoch 1
  auto st = zk_state("t", 0);
  EXPECT_EQ(st.state.isr, (V{2, 3}));
  EXPECT_EQ(st.version, 1);
  // Same state again with the old partition epoch: idempotent success.
  auto same = item(0, {3, 2}, 0, -1);  // ISR as a set, stale partition epoch
  auto r = alter(1, 2, {same});
  ASSERT_EQ(r.partitions.size(), 1u);
  EXPECT_EQ(r.partitions[0].error, ErrorCode::kNone);
  EXPECT_EQ(r.partitions[0].state.partition_epoch, 1);
  EXPECT_EQ(r.partitions[0].state.isr, (V{2, 3}));
  EXPECT_EQ(zk_state("t", 0).version, 1);  // nothing written
  // Different state with a stale partition epoch: INVALID_UPDATE_VERSION.
  EXPECT_EQ(one(0, item(0, {2}, 0, -1)), ErrorCode::kInvalidUpdateVersion);
  // Recovering with more than one ISR member; RECOVERED -> RECOVERING.
  EXPECT_EQ(one(0, item(0, {2, 3}, 0, 0, LeaderRecoveryState::kRecovering)), ErrorCode::kInvalidRequest);
  EXPECT_EQ(one(0, item(0, {2}, 0, 0, LeaderRecoveryState::kRecovering)), ErrorCode::kInvalidRequest);
  // ISR member not live: INELIGIBLE_REPLICA; the ZK state is untouched.
  EXPECT_EQ(one(0, item(0, {2, 3, 7})), ErrorCode::kIneligibleReplica);
  EXPECT_EQ(zk_state("t", 0).version, 1);
}

TEST_F(ControllerRequests, AlterPartitionLowerLeaderEpochIsFenced) {
  // t-0's leader 2 dies: 3 leads at epoch 1. A request with the old epoch 0
  // (and an old partition epoch) is fenced before the version check.
  nodes[2]->session->expire();
  settle();
  auto st = zk_state("t", 0);
  ASSERT_EQ(st.state.leader, 3);
  ASSERT_EQ(st.state.leader_epoch, 1);
  AlterPartitionItem stale{TopicPartition("t", 0), 0, {3, 1}, LeaderRecoveryState::kRecovered, st.version - 1};
  EXPECT_EQ(one(0, stale, 3), ErrorCode::kFencedLeaderEpoch);  // before the version check
}

TEST_F(ControllerRequests, AlterPartitionShuttingDownReplicaIsIneligible) {
  std::optional<ControlledShutdownResult> cs;
  ctl(1).controlled_shutdown(1, broker_epoch(1), [&](const ControlledShutdownResult& r) { cs = r; });
  settle();
  ASSERT_TRUE(cs);
  // 2 leads t-0 (ISR now [2,3]); adding back 1, which is shutting down.
  EXPECT_EQ(one(0, item(0, {2, 3, 1})), ErrorCode::kIneligibleReplica);
}

TEST_F(ControllerRequests, AlterPartitionSuccessWritesZkAndSendsUpdateMetadataButNoLeaderAndIsr) {
  auto r = alter(1, 2, {item(0, {2, 1}), item(2, {2})});
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[0].error, ErrorCode::kNone);
  EXPECT_EQ(r.partitions[0].state.isr, (V{2, 1}));
  EXPECT_EQ(r.partitions[0].state.leader, 2);
  EXPECT_EQ(r.partitions[0].state.leader_epoch, 0);
  EXPECT_EQ(r.partitions[0].state.partition_epoch, 1);
  auto st = zk_state("t", 0);
  EXPECT_EQ(st.state.isr, (V{2, 1}));
  EXPECT_EQ(st.version, 1);
  EXPECT_EQ(st.state.controller_epoch, 1);
  for (int32_t b : {1, 2, 3}) {
    EXPECT_EQ(wire(1).kinds(b), (std::vector<std::string>{"UpdateMetadata"})) << b;
  }
  auto um = std::get<UpdateMetadataRequest>(wire(1).sent(3)[0]);
  ASSERT_EQ(um.partition_states.size(), 2u);
  EXPECT_EQ(um.partition_states[0].isr, (V{2, 1}));
  EXPECT_EQ(um.partition_states[0].zk_version, 1);
}

TEST_F(ControllerRequests, AlterPartitionBadVersionInZooKeeperIsInvalidUpdateVersion) {
  // Someone else bumped /state behind the controller's back.
  auto cur = zk_state("t", 0);
  cluster::PartitionState ps = cur.state;
  ASSERT_TRUE(admin.set("/brokers/topics/t/partitions/0/state", encode_partition_state(ps), cur.version).is_ok());
  EXPECT_EQ(one(0, item(0, {2, 3}, 0, -1)), ErrorCode::kInvalidUpdateVersion);
  EXPECT_EQ(zk_state("t", 0).state.isr, (V{2, 3, 1}));
}

TEST_F(ControllerRequests, ControlledShutdownMovesLeadersDropsFollowersAndReturnsTheRest) {
  std::optional<ControlledShutdownResult> got;
  ctl(1).controlled_shutdown(2, broker_epoch(2), [&](const ControlledShutdownResult& r) { got = r; });
  settle();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->error, ErrorCode::kNone);
  // t-2 has one replica: it stays led by 2.
  EXPECT_EQ(got->remaining, (std::vector<TopicPartition>{TopicPartition("t", 2)}));
  auto s0 = zk_state("t", 0);  // led by 2: moved to 3 (first in [2,3,1] not shutting down)
  EXPECT_EQ(s0.state.leader, 3);
  EXPECT_EQ(s0.state.isr, (V{3, 1}));
  EXPECT_EQ(s0.state.leader_epoch, 1);
  auto s1 = zk_state("t", 1);  // followed by 2: out of the ISR, leader kept
  EXPECT_EQ(s1.state.leader, 3);
  EXPECT_EQ(s1.state.isr, (V{3, 1}));
  EXPECT_EQ(s1.state.leader_epoch, 1);
  EXPECT_EQ(zk_state("t", 2).state.leader, 2);
  EXPECT_TRUE(ctl(1).context().shutting_down.count(2));
  // 2 got StopReplica(delete=false) for the partition it followed, and the
  // LeaderAndIsr for the partition it led (shutting-down brokers still get them).
  auto stops = of_kind<StopReplicaRequest>(wire(1).sent(2));
  ASSERT_EQ(stops.size(), 1u);
  ASSERT_EQ(stops[0].partitions.size(), 1u);
  EXPECT_EQ(stops[0].partitions[0].partition, TopicPartition("t", 1));
  EXPECT_FALSE(stops[0].partitions[0].delete_partition);
  EXPECT_FALSE(of_kind<LeaderAndIsrRequest>(wire(1).sent(2)).empty());
  // Shutting-down brokers are offline replicas in UpdateMetadata.
  auto ums = of_kind<UpdateMetadataRequest>(wire(1).sent(3));
  ASSERT_FALSE(ums.empty());
  std::optional<V> offline;  // of t-0, in the last UpdateMetadata naming it
  for (const auto& um : ums) {
    for (const auto& p : um.partition_states) {
      if (p.partition == TopicPartition("t", 0)) offline = p.offline_replicas;
    }
  }
  EXPECT_EQ(offline, std::optional<V>(V{2}));
  // The broker then dies: no further election for what it no longer leads.
  nodes[2]->session->expire();
  settle();
  EXPECT_EQ(zk_state("t", 0).state.leader_epoch, 1);
  EXPECT_FALSE(ctl(1).context().shutting_down.count(2));
}

TEST_F(ControllerRequests, ControlledShutdownErrors) {
  std::vector<ErrorCode> got;
  auto cb = [&](const ControlledShutdownResult& r) { got.push_back(r.error); };
  ctl(3).controlled_shutdown(2, broker_epoch(2), cb);  // not the controller
  settle();
  ctl(1).controlled_shutdown(2, broker_epoch(2) - 1, cb);            // old epoch
  ctl(1).controlled_shutdown(9, 5, cb);                              // unknown broker
  ctl(1).controlled_shutdown(2, -1, cb);                             // unknown epoch: accepted
  settle();
  EXPECT_EQ(got, (std::vector<ErrorCode>{ErrorCode::kNotController, ErrorCode::kStaleBrokerEpoch,
                                         ErrorCode::kBrokerNotAvailable, ErrorCode::kNone}));
}

TEST_F(ControllerRequests, LeaderAndIsrErrorsAreLoggedAndChangeNothing) {
  ctl(1).events().put(BrokerResponseEvent{2, LeaderAndIsrRequest{}, ControllerResponse{ErrorCode::kStaleControllerEpoch, {}}});
  settle();
  EXPECT_TRUE(ctl(1).is_active());
  EXPECT_TRUE(wire(1).all().empty());
}

}  // namespace
}  // namespace spool::cluster::controller
