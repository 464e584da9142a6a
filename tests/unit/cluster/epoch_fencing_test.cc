// The receiving broker's epoch fencing, branch by branch: the request-level
// gate (broker epoch, controller epoch) and the per-partition rules of
// LeaderAndIsr and StopReplica.
#include "cluster/epoch_fencing.h"

#include <gtest/gtest.h>

#include <map>

#include "wire_round_trip.h"

namespace spool::cluster {
namespace {

using protocol::ErrorCode;
using testing::id_of;

TEST(ControllerEpochGate, BrokerEpochBelowOursIsStale) {
  ControllerEpochGate gate(100, 3);
  EXPECT_EQ(gate.admit(3, 99), ErrorCode::kStaleBrokerEpoch);
  EXPECT_EQ(gate.controller_epoch(), 3);
}

TEST(ControllerEpochGate, NewerBrokerEpochAndUnknownAreAccepted) {
  ControllerEpochGate gate(100, 3);
  EXPECT_EQ(gate.admit(3, 101), ErrorCode::kNone);  // KAFKA-9839
  EXPECT_EQ(gate.admit(3, -1), ErrorCode::kNone);   // not sent
  EXPECT_EQ(gate.admit(3, 100), ErrorCode::kNone);
  EXPECT_EQ(gate.broker_epoch(), 100);
}

TEST(ControllerEpochGate, LowerControllerEpochIsStaleAndChangesNothing) {
  ControllerEpochGate gate(100, 5);
  EXPECT_EQ(gate.admit(4, 100), ErrorCode::kStaleControllerEpoch);
  EXPECT_EQ(gate.controller_epoch(), 5);
}

TEST(ControllerEpochGate, BrokerEpochIsCheckedFirst) {
  ControllerEpochGate gate(100, 5);
  EXPECT_EQ(gate.check(4, 50), ErrorCode::kStaleBrokerEpoch);
}

TEST(ControllerEpochGate, AdmitRaisesTheHighestSeenCheckDoesNot) {
  ControllerEpochGate gate(100, 5);
  EXPECT_EQ(gate.check(7, 100), ErrorCode::kNone);
  EXPECT_EQ(gate.controller_epoch(), 5);
  EXPECT_EQ(gate.admit(7, 100), ErrorCode::kNone);
  EXPECT_EQ(gate.controller_epoch(), 7);
  EXPECT_EQ(gate.admit(6, 100), ErrorCode::kStaleControllerEpoch);
  EXPECT_EQ(gate.admit(7, 100), ErrorCode::kNone);  // equal is fine
  gate.set_broker_epoch(200);
  EXPECT_EQ(gate.admit(7, 150), ErrorCode::kStaleBrokerEpoch);
}

TEST(ControllerEpochGate, DefaultAcceptsTheFirstController) {
  ControllerEpochGate gate;
  EXPECT_EQ(gate.admit(1, -1), ErrorCode::kNone);
  EXPECT_EQ(gate.controller_epoch(), 1);
}

// ------------------------------------------------------------- LeaderAndIsr

LeaderAndIsrPartitionCommand lai(const std::string& topic, int32_t partition, int32_t leader_epoch,
                                 int32_t partition_epoch, std::vector<int32_t> replicas, TopicId id = id_of(1)) {
  LeaderAndIsrPartitionCommand p;
  p.partition = TopicPartition(topic, partition);
  p.topic_id = id;
  p.leader_epoch = leader_epoch;
  p.partition_epoch = partition_epoch;
  p.replicas = std::move(replicas);
  return p;
}

HostedStateLookup lookup(std::map<TopicPartition, HostedPartitionState> hosted) {
  return [hosted = std::move(hosted)](const TopicPartition& tp) -> std::optional<HostedPartitionState> {
    auto it = hosted.find(tp);
    if (it == hosted.end()) return std::nullopt;
    return it->second;
  };
}

TEST(DecideLeaderAndIsr, EveryBranch) {
  LeaderAndIsrCommand req;
  req.partitions = {
      lai("new", 0, 0, 0, {1, 2}),             // not hosted: current epoch -1 -> apply
      lai("higher", 0, 5, 7, {1, 2}),          // 5 > 4 -> apply
      lai("equal", 0, 4, 9, {1, 2}),           // 4 == 4 -> stale controller epoch
      lai("lower", 0, 3, 9, {1, 2}),           // 3 < 4 -> stale controller epoch
      lai("notreplica", 0, 5, 7, {2, 3}),      // not in replicas -> unknown topic or partition
      lai("oldpe", 0, 5, 2, {1, 2}),           // partition epoch 2 < 3 -> skip
      lai("offline", 0, 5, 7, {1, 2}),         // offline dir -> storage error
      lai("otherid", 0, 5, 7, {1, 2}, id_of(9)),  // ids differ -> inconsistent topic id
      lai("noid", 0, 5, 7, {1, 2}, TopicId{}),    // request without id: consistent
  };
  std::map<TopicPartition, HostedPartitionState> hosted;
  hosted[{"higher", 0}] = {4, 6, id_of(1), false};
  hosted[{"equal", 0}] = {4, 6, id_of(1), false};
  hosted[{"lower", 0}] = {4, 6, id_of(1), false};
  hosted[{"notreplica", 0}] = {4, 6, id_of(1), false};
  hosted[{"oldpe", 0}] = {4, 3, id_of(1), false};
  hosted[{"offline", 0}] = {4, 3, id_of(1), true};
  hosted[{"otherid", 0}] = {4, 3, id_of(1), false};
  hosted[{"noid", 0}] = {4, 3, id_of(1), false};
  auto d = decide_leader_and_isr(req, 1, lookup(hosted));
  using A = PartitionAction;
  std::vector<LeaderAndIsrDecision> want = {
      {{"new", 0}, A::kApply, ErrorCode::kNone},
      {{"higher", 0}, A::kApply, ErrorCode::kNone},
      {{"equal", 0}, A::kReject, ErrorCode::kStaleControllerEpoch},
      {{"lower", 0}, A::kReject, ErrorCode::kStaleControllerEpoch},
      {{"notreplica", 0}, A::kReject, ErrorCode::kUnknownTopicOrPartition},
      {{"oldpe", 0}, A::kSkip, ErrorCode::kNone},
      {{"offline", 0}, A::kReject, ErrorCode::kKafkaStorageError},
      {{"otherid", 0}, A::kReject, ErrorCode::kInconsistentTopicId},
      {{"noid", 0}, A::kApply, ErrorCode::kNone},
  };
  EXPECT_EQ(d, want);
  auto errors = decision_errors(d);
  ASSERT_EQ(errors.size(), want.size());
  EXPECT_EQ(errors[4], (PartitionErrorCode{{"notreplica", 0}, ErrorCode::kUnknownTopicOrPartition}));
}

TEST(DecideLeaderAndIsr, LocalTopicIdUnknownIsConsistent) {
  LeaderAndIsrCommand req;
  req.partitions = {lai("t", 0, 1, 1, {1})};
  auto d = decide_leader_and_isr(req, 1, lookup({{{"t", 0}, HostedPartitionState{0, 0, TopicId{}, false}}}));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].action, PartitionAction::kApply);
}

TEST(DecideLeaderAndIsr, EpochCheckComesBeforeTheReplicaCheck) {
  LeaderAndIsrCommand req;
  req.partitions = {lai("t", 0, 2, 1, {7})};
  auto d = decide_leader_and_isr(req, 1, lookup({{{"t", 0}, HostedPartitionState{2, 0, id_of(1), false}}}));
  EXPECT_EQ(d[0].error, ErrorCode::kStaleControllerEpoch);
}

// -------------------------------------------------------------- StopReplica

TEST(DecideStopReplica, EveryBranch) {
  StopReplicaCommand req;
  req.partitions = {
      {{"deleting", 0}, -2, true},   // EpochDuringDelete bypasses
      {{"noepoch", 0}, -1, false},   // NoEpoch bypasses
      {{"equal", 0}, 4, false},      // >= current stops
      {{"higher", 0}, 5, true},
      {{"lower", 0}, 3, true},       // lower -> fenced
      {{"absent", 0}, 1, true},      // not hosted -> stop (delete leftovers)
      {{"offline", 0}, 9, false},    // offline -> storage error
  };
  std::map<TopicPartition, HostedPartitionState> hosted;
  for (const char* t : {"deleting", "noepoch", "equal", "higher", "lower"}) hosted[{t, 0}] = {4, 4, id_of(1), false};
  hosted[{"offline", 0}] = {4, 4, id_of(1), true};
  auto d = decide_stop_replica(req, lookup(hosted));
  using A = PartitionAction;
  std::vector<StopReplicaDecision> want = {
      {{"deleting", 0}, A::kApply, true, ErrorCode::kNone},
      {{"noepoch", 0}, A::kApply, false, ErrorCode::kNone},
      {{"equal", 0}, A::kApply, false, ErrorCode::kNone},
      {{"higher", 0}, A::kApply, true, ErrorCode::kNone},
      {{"lower", 0}, A::kReject, true, ErrorCode::kFencedLeaderEpoch},
      {{"absent", 0}, A::kApply, true, ErrorCode::kNone},
      {{"offline", 0}, A::kReject, false, ErrorCode::kKafkaStorageError},
  };
  EXPECT_EQ(d, want);
  auto errors = decision_errors(d);
  ASSERT_EQ(errors.size(), want.size());
  EXPECT_EQ(errors[4], (PartitionErrorCode{{"lower", 0}, ErrorCode::kFencedLeaderEpoch}));
}

}  // namespace
}  // namespace spool::cluster
