// Golden byte strings for the inter-broker APIs of ZooKeeper-mode clusters
// (issue 13): LeaderAndIsr 0-7, StopReplica 0-4, UpdateMetadata 0-8,
// ControlledShutdown 0-3 (Kafka 3.9's versions; Kafka 4.0 removed them) and
// AlterPartition 0-3. Each message at its lowest, first flexible and highest
// version (plus the versions where its shape changes most). Expected bytes
// are written by hand from Kafka's message specs, field by field ('|'
// separates fields); every check also decodes them back and refuses every
// truncation.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/alter_partition_request.h"
#include "protocol/alter_partition_response.h"
#include "protocol/api_table.h"
#include "protocol/controlled_shutdown_request.h"
#include "protocol/controlled_shutdown_response.h"
#include "protocol/leader_and_isr_request.h"
#include "protocol/leader_and_isr_response.h"
#include "protocol/stop_replica_request.h"
#include "protocol/stop_replica_response.h"
#include "protocol/update_metadata_request.h"
#include "protocol/update_metadata_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

const std::string kId = "000102030405060708090a0b0c0d0e0f";

Uuid test_id() {
  Uuid id{};
  for (uint8_t i = 0; i < 16; ++i) id[i] = i;
  return id;
}

TEST(GoldenInterBroker, NamesAndFlexibilityAreKnown) {
  EXPECT_EQ(api_name(4), "LeaderAndIsr");
  EXPECT_EQ(api_name(5), "StopReplica");
  EXPECT_EQ(api_name(6), "UpdateMetadata");
  EXPECT_EQ(api_name(7), "ControlledShutdown");
  EXPECT_EQ(api_name(56), "AlterPartition");
  EXPECT_FALSE(is_flexible(4, 3));
  EXPECT_TRUE(is_flexible(4, 4));
  EXPECT_FALSE(is_flexible(5, 1));
  EXPECT_TRUE(is_flexible(5, 2));
  EXPECT_FALSE(is_flexible(6, 5));
  EXPECT_TRUE(is_flexible(6, 6));
  EXPECT_FALSE(is_flexible(7, 2));
  EXPECT_TRUE(is_flexible(7, 3));
  EXPECT_TRUE(is_flexible(56, 0));
}

// ---------------------------------------------------------------- LeaderAndIsr
using LaiState = LeaderAndIsrRequest::LeaderAndIsrPartitionState;

LaiState lai_state() {
  LaiState s;
  s.partition_index = 0;
  s.controller_epoch = 5;
  s.leader = 1;
  s.leader_epoch = 2;
  s.isr = {1, 2};
  s.partition_epoch = 3;
  s.replicas = {1, 2};
  return s;
}

LeaderAndIsrRequest::LeaderAndIsrLiveLeader live_leader() { return {1, "h", 9092}; }

TEST(GoldenInterBroker, LeaderAndIsrRequestV0Ungrouped) {
  LeaderAndIsrRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  LaiState s = lai_state();
  s.topic_name = "t";
  m.ungrouped_partition_states.push_back(s);
  m.live_leaders.push_back(live_leader());
  check_golden(m, 0,
               "00000001 | 00000005 |"
               "00000001 | 0001 74 | 00000000 | 00000005 | 00000001 | 00000002 | 00000002 00000001 00000002 |"
               "00000003 | 00000002 00000001 00000002 |"
               "00000001 | 00000001 | 0001 68 | 00002384");
}

TEST(GoldenInterBroker, LeaderAndIsrRequestV4FirstFlexible) {
  LeaderAndIsrRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  m.broker_epoch = 7;
  LaiState s = lai_state();
  s.removing_replicas = {3};
  s.is_new = true;
  m.topic_states.push_back({"t", Uuid{}, {s}});
  m.live_leaders.push_back(live_leader());
  check_golden(m, 4,
               "00000001 | 00000005 | 0000000000000007 |"
               "02 | 02 74 | 02 | 00000000 | 00000005 | 00000001 | 00000002 | 03 00000001 00000002 | 00000003 |"
               "03 00000001 00000002 | 01 | 02 00000003 | 01 | 00 | 00 |"
               "02 | 00000001 | 02 68 | 00002384 | 00 | 00");
}

TEST(GoldenInterBroker, LeaderAndIsrRequestV7TopicIdTypeRecoveryAndKRaftFlag) {
  LeaderAndIsrRequest m;
  m.controller_id = 1;
  m.is_k_raft_controller = true;
  m.controller_epoch = 5;
  m.broker_epoch = 7;
  m.type = 2;
  LaiState s = lai_state();
  s.leader_recovery_state = 1;
  m.topic_states.push_back({"t", test_id(), {s}});
  check_golden(m, 7,
               "00000001 | 01 | 00000005 | 0000000000000007 | 02 |"
               "02 | 02 74 | " + kId + " | 02 | 00000000 | 00000005 | 00000001 | 00000002 | 03 00000001 00000002 |"
               "00000003 | 03 00000001 00000002 | 01 | 01 | 00 | 01 | 00 | 00 |"
               "01 | 00");
}

TEST(GoldenInterBroker, LeaderAndIsrResponseV0V4AndV7) {
  LeaderAndIsrResponse m;
  m.partition_errors.push_back({"t", 1, ErrorCode::kKafkaStorageError});
  check_golden(m, 0, "0000 | 00000001 | 0001 74 | 00000001 | 0038");
  check_golden(m, 4, "0000 | 02 | 02 74 | 00000001 | 0038 | 00 | 00");

  LeaderAndIsrResponse g;
  g.error_code = ErrorCode::kNone;
  g.topics.push_back({test_id(), {{"", 1, ErrorCode::kKafkaStorageError}}});
  check_golden(g, 5, "0000 | 02 | " + kId + " | 02 | 00000001 | 0038 | 00 | 00 | 00");
  check_golden(g, 7, "0000 | 02 | " + kId + " | 02 | 00000001 | 0038 | 00 | 00 | 00");

  LeaderAndIsrResponse stale;
  stale.error_code = ErrorCode::kStaleControllerEpoch;
  check_golden(stale, 7, "000b | 01 | 00");
}

// ---------------------------------------------------------------- StopReplica
TEST(GoldenInterBroker, StopReplicaRequestV0Ungrouped) {
  StopReplicaRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  m.delete_partitions = true;
  m.ungrouped_partitions.push_back({"t", 2});
  check_golden(m, 0, "00000001 | 00000005 | 01 | 00000001 | 0001 74 | 00000002");
}

TEST(GoldenInterBroker, StopReplicaRequestV1AndV2ByTopic) {
  StopReplicaRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  m.broker_epoch = 7;
  m.topics.push_back({"t", {0, 1}});
  check_golden(m, 1, "00000001 | 00000005 | 0000000000000007 | 00 | 00000001 | 0001 74 | 00000002 00000000 00000001");
  check_golden(m, 2, "00000001 | 00000005 | 0000000000000007 | 00 | 02 | 02 74 | 03 00000000 00000001 | 00 | 00");
}

TEST(GoldenInterBroker, StopReplicaRequestV4PartitionStates) {
  StopReplicaRequest m;
  m.controller_id = 1;
  m.is_k_raft_controller = true;
  m.controller_epoch = 5;
  m.broker_epoch = 7;
  StopReplicaRequest::StopReplicaTopicState t;
  t.topic_name = "t";
  t.partition_states.push_back({0, 4, true});
  t.partition_states.push_back({1, -1, false});
  m.topic_states.push_back(t);
  check_golden(m, 4,
               "00000001 | 01 | 00000005 | 0000000000000007 |"
               "02 | 02 74 | 03 | 00000000 | 00000004 | 01 | 00 | 00000001 | ffffffff | 00 | 00 | 00 | 00");
}

TEST(GoldenInterBroker, StopReplicaResponseV0V2AndV4) {
  StopReplicaResponse m;
  m.partition_errors.push_back({"t", 0, ErrorCode::kFencedLeaderEpoch});
  check_golden(m, 0, "0000 | 00000001 | 0001 74 | 00000000 | 004a");
  check_golden(m, 2, "0000 | 02 | 02 74 | 00000000 | 004a | 00 | 00");
  check_golden(m, 4, "0000 | 02 | 02 74 | 00000000 | 004a | 00 | 00");
}

// ---------------------------------------------------------------- UpdateMetadata
using UmState = UpdateMetadataRequest::UpdateMetadataPartitionState;

UmState um_state() {
  UmState s;
  s.partition_index = 0;
  s.controller_epoch = 5;
  s.leader = 1;
  s.leader_epoch = 2;
  s.isr = {1};
  s.zk_version = 3;
  s.replicas = {1, 2};
  return s;
}

TEST(GoldenInterBroker, UpdateMetadataRequestV0SingleHostPort) {
  UpdateMetadataRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  UmState s = um_state();
  s.topic_name = "t";
  m.ungrouped_partition_states.push_back(s);
  UpdateMetadataRequest::UpdateMetadataBroker b;
  b.id = 1;
  b.v0_host = "h";
  b.v0_port = 9092;
  m.live_brokers.push_back(b);
  check_golden(m, 0,
               "00000001 | 00000005 |"
               "00000001 | 0001 74 | 00000000 | 00000005 | 00000001 | 00000002 | 00000001 00000001 | 00000003 |"
               "00000002 00000001 00000002 |"
               "00000001 | 00000001 | 0001 68 | 00002384");
}

UpdateMetadataRequest::UpdateMetadataBroker um_broker(std::optional<std::string> rack) {
  UpdateMetadataRequest::UpdateMetadataBroker b;
  b.id = 1;
  b.endpoints.push_back({9092, "h", "PLAINTEXT", 0});
  b.rack = std::move(rack);
  return b;
}

TEST(GoldenInterBroker, UpdateMetadataRequestV4OfflineReplicasNullRack) {
  UpdateMetadataRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  UmState s = um_state();
  s.topic_name = "t";
  s.offline_replicas = {2};
  m.ungrouped_partition_states.push_back(s);
  m.live_brokers.push_back(um_broker(std::nullopt));
  check_golden(m, 4,
               "00000001 | 00000005 |"
               "00000001 | 0001 74 | 00000000 | 00000005 | 00000001 | 00000002 | 00000001 00000001 | 00000003 |"
               "00000002 00000001 00000002 | 00000001 00000002 |"
               "00000001 | 00000001 | 00000001 | 00002384 | 0001 68 | 0009 504c41494e54455854 | 0000 | ffff");
}

TEST(GoldenInterBroker, UpdateMetadataRequestV6FirstFlexible) {
  UpdateMetadataRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  m.broker_epoch = 7;
  UmState s = um_state();
  s.offline_replicas = {2};
  m.topic_states.push_back({"t", Uuid{}, {s}});
  m.live_brokers.push_back(um_broker("r"));
  check_golden(m, 6,
               "00000001 | 00000005 | 0000000000000007 |"
               "02 | 02 74 | 02 | 00000000 | 00000005 | 00000001 | 00000002 | 02 00000001 | 00000003 |"
               "03 00000001 00000002 | 02 00000002 | 00 | 00 |"
               "02 | 00000001 | 02 | 00002384 | 02 68 | 0a 504c41494e54455854 | 0000 | 00 | 02 72 | 00 |"
               "00");
}

TEST(GoldenInterBroker, UpdateMetadataRequestV8TopicIdKRaftAndTaggedType) {
  UpdateMetadataRequest m;
  m.controller_id = 1;
  m.controller_epoch = 5;
  m.broker_epoch = 7;
  m.topic_states.push_back({"t", test_id(), {}});
  m.live_brokers.push_back(um_broker(std::nullopt));
  // Type at its default (0) is not written.
  check_golden(m, 8,
               "00000001 | 00 | 00000005 | 0000000000000007 | 02 | 02 74 | " + kId + " | 01 | 00 |"
               "02 | 00000001 | 02 | 00002384 | 02 68 | 0a 504c41494e54455854 | 0000 | 00 | 00 | 00 |"
               "00");
  m.is_k_raft_controller = true;
  m.type = 2;
  check_golden(m, 8,
               "00000001 | 01 | 00000005 | 0000000000000007 | 02 | 02 74 | " + kId + " | 01 | 00 |"
               "02 | 00000001 | 02 | 00002384 | 02 68 | 0a 504c41494e54455854 | 0000 | 00 | 00 | 00 |"
               "01 | 00 01 02");
}

TEST(GoldenInterBroker, UpdateMetadataResponseV0V6AndV8) {
  UpdateMetadataResponse m;
  m.error_code = ErrorCode::kStaleControllerEpoch;
  check_golden(m, 0, "000b");
  check_golden(m, 6, "000b | 00");
  check_golden(m, 8, "000b | 00");
}

// ---------------------------------------------------------------- ControlledShutdown
TEST(GoldenInterBroker, ControlledShutdownRequestV0V2AndV3) {
  ControlledShutdownRequest m;
  m.broker_id = 1;
  check_golden(m, 0, "00000001");
  m.broker_epoch = 7;
  check_golden(m, 2, "00000001 | 0000000000000007");
  check_golden(m, 3, "00000001 | 0000000000000007 | 00");
}

TEST(GoldenInterBroker, ControlledShutdownResponseV0AndV3) {
  ControlledShutdownResponse m;
  m.remaining_partitions.push_back({"t", 0});
  check_golden(m, 0, "0000 | 00000001 | 0001 74 | 00000000");
  check_golden(m, 3, "0000 | 02 | 02 74 | 00000000 | 00 | 00");
  ControlledShutdownResponse stale;
  stale.error_code = ErrorCode::kStaleBrokerEpoch;
  check_golden(stale, 3, "004d | 01 | 00");
}

// ---------------------------------------------------------------- AlterPartition
AlterPartitionRequest::PartitionData alter_partition_data() {
  AlterPartitionRequest::PartitionData p;
  p.partition_index = 0;
  p.leader_epoch = 2;
  p.partition_epoch = 3;
  return p;
}

TEST(GoldenInterBroker, AlterPartitionRequestV0AndV1ByName) {
  AlterPartitionRequest m;
  m.broker_id = 1;
  m.broker_epoch = 7;
  AlterPartitionRequest::PartitionData p = alter_partition_data();
  p.new_isr = {1, 2};
  m.topics.push_back({"t", Uuid{}, {p}});
  check_golden(m, 0,
               "00000001 | 0000000000000007 | 02 | 02 74 | 02 | 00000000 | 00000002 | 03 00000001 00000002 |"
               "00000003 | 00 | 00 | 00");
  m.topics[0].partitions[0].leader_recovery_state = 1;
  check_golden(m, 1,
               "00000001 | 0000000000000007 | 02 | 02 74 | 02 | 00000000 | 00000002 | 03 00000001 00000002 | 01 |"
               "00000003 | 00 | 00 | 00");
}

TEST(GoldenInterBroker, AlterPartitionRequestV2ByIdAndV3IsrWithEpochs) {
  AlterPartitionRequest m;
  m.broker_id = 1;
  m.broker_epoch = 7;
  AlterPartitionRequest::PartitionData p = alter_partition_data();
  p.new_isr = {1};
  m.topics.push_back({"", test_id(), {p}});
  check_golden(m, 2,
               "00000001 | 0000000000000007 | 02 | " + kId + " | 02 | 00000000 | 00000002 | 02 00000001 | 00 |"
               "00000003 | 00 | 00 | 00");

  AlterPartitionRequest e;
  e.broker_id = 1;
  e.broker_epoch = 7;
  AlterPartitionRequest::PartitionData q = alter_partition_data();
  q.new_isr_with_epochs = {{1, 7}, {2, -1}};
  e.topics.push_back({"", test_id(), {q}});
  check_golden(e, 3,
               "00000001 | 0000000000000007 | 02 | " + kId + " | 02 | 00000000 | 00000002 |"
               "03 | 00000001 | 0000000000000007 | 00 | 00000002 | ffffffffffffffff | 00 | 00 |"
               "00000003 | 00 | 00 | 00");
}

TEST(GoldenInterBroker, AlterPartitionResponseV0AndV3) {
  AlterPartitionResponse m;
  AlterPartitionResponse::PartitionData p;
  p.partition_index = 0;
  p.leader_id = 1;
  p.leader_epoch = 2;
  p.isr = {1, 2};
  p.partition_epoch = 3;
  m.topics.push_back({"t", Uuid{}, {p}});
  check_golden(m, 0,
               "00000000 | 0000 | 02 | 02 74 | 02 | 00000000 | 0000 | 00000001 | 00000002 | 03 00000001 00000002 |"
               "00000003 | 00 | 00 | 00");

  AlterPartitionResponse g;
  g.throttle_time_ms = 10;
  AlterPartitionResponse::PartitionData q;
  q.partition_index = 1;
  q.error_code = ErrorCode::kNewLeaderElected;
  q.leader_id = 2;
  q.leader_epoch = 4;
  q.isr = {2};
  q.leader_recovery_state = 1;
  q.partition_epoch = 9;
  g.topics.push_back({"", test_id(), {q}});
  check_golden(g, 3,
               "0000000a | 0000 | 02 | " + kId + " | 02 | 00000001 | 006c | 00000002 | 00000004 | 02 00000002 | 01 |"
               "00000009 | 00 | 00 | 00");
  AlterPartitionResponse top;
  top.error_code = ErrorCode::kNotController;
  check_golden(top, 2, "00000000 | 0029 | 01 | 00");
}

}  // namespace
}  // namespace spool::protocol
