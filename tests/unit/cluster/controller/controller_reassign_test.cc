// Partition reassignment (KIP-455) on the in-memory store: RS/AR/RR in the
// topic znode, LeaderAndIsr to the new replicas, completion when the target
// is in sync (leader moved, removed replicas stopped and deleted), cancel,
// validation errors, /admin/reassign_partitions, and resumption by a new
// controller.
#include <gtest/gtest.h>

#include "cluster/zk_data.h"
#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using protocol::ErrorCode;
using testing::ClusterFixture;
using testing::find_partition;
using testing::of_kind;
using V = std::vector<int32_t>;

class ControllerReassign : public ClusterFixture {
 protected:
  void SetUp() override {
    for (int32_t b : {1, 2, 3, 4}) start_broker(b);
    create_topic("t", {{0, {1, 2}}, {1, {2, 3}}});
    start_controller(1);
    start_controller(3);
    settle();
    ASSERT_TRUE(ctl(1).is_active());
    wire(1).clear();
  }
  std::pair<ErrorCode, std::vector<ReassignmentResult>> alter(int32_t controller, std::vector<ReassignmentItem> items,
                                                              bool allow_rf_change = true) {
    std::optional<std::pair<ErrorCode, std::vector<ReassignmentResult>>> got;
    ctl(controller).alter_partition_reassignments(
        std::move(items), allow_rf_change,
        [&](ErrorCode e, const std::vector<ReassignmentResult>& r) { got.emplace(e, r); });
    settle();
    EXPECT_TRUE(got);
    return got.value_or(std::make_pair(ErrorCode::kUnknownServerError, std::vector<ReassignmentResult>{}));
  }
  std::vector<OngoingReassignment> list(int32_t controller = 1) {
    std::optional<std::vector<OngoingReassignment>> got;
    ctl(controller).list_partition_reassignments(
        std::nullopt, [&](ErrorCode e, const std::vector<OngoingReassignment>& r) {
          EXPECT_EQ(e, ErrorCode::kNone);
          got = r;
        });
    settle();
    return got.value_or(std::vector<OngoingReassignment>{});
  }
  PartitionReplicas znode(int32_t p) {
    auto a = decode_topic_assignment("t", data(zk_paths::topic("t")));
    EXPECT_TRUE(a.is_ok());
    return a.is_ok() ? a->partitions[p] : PartitionReplicas{};
  }
};

TEST_F(ControllerReassign, MovesAPartitionAndItsLeadership) {
  const int32_t epoch0 = zk_state("t", 0).state.leader_epoch;
  auto [top, r] = alter(1, {ReassignmentItem{TopicPartition("t", 0), V{3, 4}}});
  ASSERT_EQ(top, ErrorCode::kNone);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, ErrorCode::kNone);
  // U: RS = TRS ++ ORS, AR and RR in the znode.
  EXPECT_EQ(znode(0), (PartitionReplicas{V{3, 4, 1, 2}, V{3, 4}, V{1, 2}}));
  // A: a new leader epoch, LeaderAndIsr with RS/AR/RR to the old and (is_new) the new replicas.
  EXPECT_EQ(zk_state("t", 0).state.leader_epoch, epoch0 + 1);
  EXPECT_EQ(zk_state("t", 0).state.leader, 1);
  for (int32_t b : {1, 2, 3, 4}) {
    auto lai = of_kind<LeaderAndIsrRequest>(wire(1).sent(b));
    ASSERT_FALSE(lai.empty()) << "broker " << b;
    const auto* p = find_partition(lai.back(), TopicPartition("t", 0));
    ASSERT_NE(p, nullptr) << "broker " << b;
    EXPECT_EQ(p->replicas, (V{3, 4, 1, 2}));
    EXPECT_EQ(p->adding_replicas, (V{3, 4}));
    EXPECT_EQ(p->removing_replicas, (V{1, 2}));
  }
  auto ongoing = list();
  ASSERT_EQ(ongoing.size(), 1u);
  EXPECT_EQ(ongoing[0], (OngoingReassignment{TopicPartition("t", 0), V{3, 4, 1, 2}, V{3, 4}, V{1, 2}}));
  // Only 3 caught up: not complete.
  alter_isr(1, "t", 0, {1, 2, 3});
  EXPECT_EQ(list().size(), 1u);
  // 4 too: B. The leader (1) is not in TRS: the first live TRS replica in the ISR leads.
  wire(1).clear();
  alter_isr(1, "t", 0, {1, 2, 3, 4});
  EXPECT_TRUE(list().empty());
  EXPECT_EQ(znode(0), (PartitionReplicas{V{3, 4}, {}, {}}));
  auto s = zk_state("t", 0).state;
  EXPECT_EQ(s.leader, 3);
  EXPECT_EQ(s.isr, (V{3, 4}));  // the removed replicas left the ISR
  // The removed replicas were told to delete the partition.
  for (int32_t b : {1, 2}) {
    bool deleted = false;
    for (const auto& sr : of_kind<StopReplicaRequest>(wire(1).sent(b)))
      for (const auto& p : sr.partitions) deleted = deleted || (p.partition == TopicPartition("t", 0) && p.delete_partition);
    EXPECT_TRUE(deleted) << "broker " << b;
  }
  EXPECT_EQ(ctl(1).context().replicas(TopicPartition("t", 0)), (V{3, 4}));
}

TEST_F(ControllerReassign, AlreadyInSyncCompletesAtOnceAndKeepsTheLeader) {
  // Shrinking t-0 from [1,2] to [1]: 1 is in the ISR already.
  auto [top, r] = alter(1, {ReassignmentItem{TopicPartition("t", 0), V{1}}});
  ASSERT_EQ(r.at(0).error, ErrorCode::kNone);
  EXPECT_TRUE(list().empty());
  EXPECT_EQ(znode(0), (PartitionReplicas{V{1}, {}, {}}));
  EXPECT_EQ(zk_state("t", 0).state.leader, 1);
  EXPECT_EQ(zk_state("t", 0).state.isr, (V{1}));
}

TEST_F(ControllerReassign, CancelReturnsToTheOriginalReplicasAndDropsTheNewOnes) {
  alter(1, {ReassignmentItem{TopicPartition("t", 1), V{2, 3, 4}}});
  ASSERT_EQ(list().size(), 1u);
  wire(1).clear();
  auto [top, r] = alter(1, {ReassignmentItem{TopicPartition("t", 1), std::nullopt}});
  ASSERT_EQ(r.at(0).error, ErrorCode::kNone);
  EXPECT_TRUE(list().empty());
  EXPECT_EQ(znode(1), (PartitionReplicas{V{2, 3}, {}, {}}));
  bool deleted = false;  // 4 was being added: it deletes its replica
  for (const auto& sr : of_kind<StopReplicaRequest>(wire(1).sent(4)))
    for (const auto& p : sr.partitions) deleted = deleted || (p.partition == TopicPartition("t", 1) && p.delete_partition);
  EXPECT_TRUE(deleted);
  // A cancel with nothing in progress.
  auto [top2, r2] = alter(1, {ReassignmentItem{TopicPartition("t", 1), std::nullopt}});
  EXPECT_EQ(r2.at(0).error, ErrorCode::kNoReassignmentInProgress);
}

TEST_F(ControllerReassign, InvalidTargetsChangeNothing) {
  const std::string before = data(zk_paths::topic("t"));
  auto [top, r] = alter(1, {ReassignmentItem{TopicPartition("t", 0), V{}},
                            ReassignmentItem{TopicPartition("t", 0), V{3, 3}},
                            ReassignmentItem{TopicPartition("t", 0), V{3, -1}},
                            ReassignmentItem{TopicPartition("t", 0), V{3, 9}},
                            ReassignmentItem{TopicPartition("t", 7), V{1}},
                            ReassignmentItem{TopicPartition("u", 0), V{1}}});
  ASSERT_EQ(top, ErrorCode::kNone);
  ASSERT_EQ(r.size(), 6u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r[i].error, ErrorCode::kInvalidReplicaAssignment) << i << " " << r[i].message;
  EXPECT_NE(r[3].message.find("not alive"), std::string::npos) << r[3].message;
  EXPECT_EQ(r[4].error, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(r[5].error, ErrorCode::kUnknownTopicOrPartition);
  auto [top2, r2] = alter(1, {ReassignmentItem{TopicPartition("t", 0), V{1, 2, 3}}}, /*allow_rf_change=*/false);
  EXPECT_EQ(r2.at(0).error, ErrorCode::kInvalidReplicationFactor);
  EXPECT_EQ(data(zk_paths::topic("t")), before);
  EXPECT_TRUE(list().empty());
  // Not the controller.
  auto [top3, r3] = alter(3, {ReassignmentItem{TopicPartition("t", 0), V{3, 4}}});
  EXPECT_EQ(top3, ErrorCode::kNotController);
}

TEST_F(ControllerReassign, ANewControllerResumesAndCompletesIt) {
  alter(1, {ReassignmentItem{TopicPartition("t", 0), V{3, 4}}});
  ASSERT_EQ(list().size(), 1u);
  // Controller 1 dies; 3 takes over and reads the reassignment from the znode.
  nodes[1]->controller->shutdown();
  nodes[1]->session->expire();
  settle();
  ASSERT_TRUE(ctl(3).is_active());
  auto ongoing = list(3);
  ASSERT_EQ(ongoing.size(), 1u);
  EXPECT_EQ(ongoing[0].adding, (V{3, 4}));
  // 1 was the leader and died: 2 leads now. The new replicas catch up.
  auto cur = zk_state("t", 0);
  ASSERT_EQ(cur.state.leader, 2);
  AlterPartitionRequest req;
  req.broker_id = 2;
  req.broker_epoch = broker_epoch(2);
  req.partitions.push_back(AlterPartitionItem{TopicPartition("t", 0), cur.state.leader_epoch, V{2, 3, 4},
                                              LeaderRecoveryState::kRecovered, cur.version});
  std::optional<AlterPartitionResult> got;
  ctl(3).alter_partition(req, [&](const AlterPartitionResult& r) { got = r; });
  settle();
  ASSERT_TRUE(got && got->error == ErrorCode::kNone);
  EXPECT_TRUE(list(3).empty());
  EXPECT_EQ(znode(0), (PartitionReplicas{V{3, 4}, {}, {}}));
  EXPECT_EQ(zk_state("t", 0).state.leader, 3);
}

TEST_F(ControllerReassign, LegacyZnodeIsHonouredAndRemovedWhenDone) {
  LegacyReassignment want{{TopicPartition("t", 0), V{1}}, {TopicPartition("t", 1), V{2, 3, 4}}};
  ASSERT_TRUE(admin.create(std::string(zk_paths::kReassignPartitions), encode_reassign_partitions(want)).is_ok());
  settle();
  // t-0 completed at once (1 in sync); t-1 waits for 4.
  EXPECT_EQ(znode(0), (PartitionReplicas{V{1}, {}, {}}));
  EXPECT_EQ(list().size(), 1u);
  auto left = decode_reassign_partitions(data(std::string(zk_paths::kReassignPartitions)));
  ASSERT_TRUE(left.is_ok());
  EXPECT_EQ(left->size(), 1u);
  EXPECT_EQ(left->count(TopicPartition("t", 1)), 1u);
  alter_isr(1, "t", 1, {2, 3, 4});
  EXPECT_TRUE(list().empty());
  EXPECT_FALSE(exists(std::string(zk_paths::kReassignPartitions)));
}

}  // namespace
}  // namespace spool::cluster::controller
