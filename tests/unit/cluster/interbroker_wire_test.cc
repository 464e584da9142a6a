// The broker-side decoders of UpdateMetadata (v0-8), LeaderAndIsr (v0-7) and
// StopReplica (v0-4), and their response builders: every message goes
// through the generated encode/decode at the version first, so fields the
// version lacks are really absent.
#include "cluster/interbroker_wire.h"

#include <gtest/gtest.h>

#include "wire_round_trip.h"

namespace spool::cluster {
namespace {

using protocol::ErrorCode;
using testing::id_of;
using testing::round_trip;

// ------------------------------------------------------------ UpdateMetadata

// Every field of every version set; each version's encode keeps its own.
protocol::UpdateMetadataRequest full_update_metadata() {
  protocol::UpdateMetadataRequest r;
  r.controller_id = 2;
  r.is_k_raft_controller = true;
  r.type = 1;
  r.controller_epoch = 7;
  r.broker_epoch = 4242;
  protocol::UpdateMetadataRequest::UpdateMetadataPartitionState s;
  s.topic_name = "orders";
  s.partition_index = 1;
  s.controller_epoch = 6;
  s.leader = 3;
  s.leader_epoch = 9;
  s.isr = {3, 1};
  s.zk_version = 11;
  s.replicas = {1, 3, 5};
  s.offline_replicas = {5};
  r.ungrouped_partition_states.push_back(s);
  protocol::UpdateMetadataRequest::UpdateMetadataTopicState t;
  t.topic_name = "orders";
  t.topic_id = id_of(1);
  s.topic_name.clear();
  t.partition_states.push_back(s);
  r.topic_states.push_back(t);
  protocol::UpdateMetadataRequest::UpdateMetadataBroker b;
  b.id = 3;
  b.v0_host = "h3";
  b.v0_port = 9092;
  b.endpoints.push_back({9092, "h3", "INTERNAL", 0});
  b.endpoints.push_back({9093, "h3", "EXTERNAL", 1});
  b.rack = "r1";
  r.live_brokers.push_back(b);
  return r;
}

UpdateMetadataCommand decode_um(int16_t version) {
  auto wire = round_trip(full_update_metadata(), version);
  auto cmd = decode_update_metadata(wire, version);
  EXPECT_TRUE(cmd.is_ok()) << cmd.status().message();
  return cmd.is_ok() ? *cmd : UpdateMetadataCommand{};
}

PartitionMetadata expected_partition(bool offline, bool with_id) {
  PartitionMetadata p;
  p.tp = TopicPartition("orders", 1);
  p.topic_id = with_id ? id_of(1) : TopicId{};
  p.controller_epoch = 6;
  p.leader = 3;
  p.leader_epoch = 9;
  p.isr = {3, 1};
  p.partition_epoch = 11;
  p.replicas = {1, 3, 5};
  if (offline) p.offline_replicas = {5};
  return p;
}

TEST(UpdateMetadataDecode, V0HasOnePlaintextEndpointAndNoRackOrEpoch) {
  UpdateMetadataCommand c = decode_um(0);
  EXPECT_EQ(c.controller_id, 2);
  EXPECT_EQ(c.controller_epoch, 7);
  EXPECT_EQ(c.broker_epoch, -1);
  EXPECT_FALSE(c.is_kraft_controller);
  EXPECT_EQ(c.update.controller_id, 2);
  EXPECT_EQ(c.update.controller_epoch, 7);
  ASSERT_EQ(c.update.partitions.size(), 1u);
  EXPECT_EQ(c.update.partitions[0], expected_partition(false, false));
  ASSERT_EQ(c.update.live_brokers.size(), 1u);
  EXPECT_EQ(c.update.live_brokers[0].id, 3);
  EXPECT_EQ(c.update.live_brokers[0].endpoints, (std::vector<EndPoint>{{"PLAINTEXT", "h3", 9092, "PLAINTEXT"}}));
  EXPECT_EQ(c.update.live_brokers[0].rack, std::nullopt);
}

TEST(UpdateMetadataDecode, V1NamesListenersAfterTheirSecurityProtocol) {
  UpdateMetadataCommand c = decode_um(1);
  ASSERT_EQ(c.update.live_brokers.size(), 1u);
  EXPECT_EQ(c.update.live_brokers[0].endpoints,
            (std::vector<EndPoint>{{"PLAINTEXT", "h3", 9092, "PLAINTEXT"}, {"SSL", "h3", 9093, "SSL"}}));
  EXPECT_EQ(c.update.live_brokers[0].rack, std::nullopt);
}

TEST(UpdateMetadataDecode, V2AddsRackV3ListenerNames) {
  EXPECT_EQ(decode_um(2).update.live_brokers[0].rack, std::optional<std::string>("r1"));
  UpdateMetadataCommand c = decode_um(3);
  EXPECT_EQ(c.update.live_brokers[0].endpoints,
            (std::vector<EndPoint>{{"INTERNAL", "h3", 9092, "PLAINTEXT"}, {"EXTERNAL", "h3", 9093, "SSL"}}));
  EXPECT_EQ(c.update.partitions[0].offline_replicas, std::vector<int32_t>{});
}

TEST(UpdateMetadataDecode, V4AddsOfflineReplicasUngrouped) {
  UpdateMetadataCommand c = decode_um(4);
  ASSERT_EQ(c.update.partitions.size(), 1u);
  EXPECT_EQ(c.update.partitions[0], expected_partition(true, false));
  EXPECT_EQ(c.broker_epoch, -1);
}

TEST(UpdateMetadataDecode, V5TopicStatesAndBrokerEpoch) {
  UpdateMetadataCommand c = decode_um(5);
  EXPECT_EQ(c.broker_epoch, 4242);
  ASSERT_EQ(c.update.partitions.size(), 1u);
  EXPECT_EQ(c.update.partitions[0], expected_partition(true, false));
}

TEST(UpdateMetadataDecode, V6FirstFlexibleStillWithoutTopicIds) {
  UpdateMetadataCommand c = decode_um(6);
  ASSERT_EQ(c.update.partitions.size(), 1u);
  EXPECT_EQ(c.update.partitions[0], expected_partition(true, false));
  EXPECT_EQ(c.update.live_brokers[0].rack, std::optional<std::string>("r1"));
}

TEST(UpdateMetadataDecode, V7TopicIds) {
  UpdateMetadataCommand c = decode_um(7);
  ASSERT_EQ(c.update.partitions.size(), 1u);
  EXPECT_EQ(c.update.partitions[0], expected_partition(true, true));
  EXPECT_FALSE(c.is_kraft_controller);
  EXPECT_EQ(c.type, 0);
}

TEST(UpdateMetadataDecode, V8KRaftFlagAndType) {
  UpdateMetadataCommand c = decode_um(8);
  EXPECT_EQ(c.update.partitions[0], expected_partition(true, true));
  EXPECT_TRUE(c.is_kraft_controller);
  EXPECT_EQ(c.type, 1);
  EXPECT_EQ(c.broker_epoch, 4242);
  EXPECT_EQ(c.update.live_brokers[0].endpoints.size(), 2u);
}

TEST(UpdateMetadataDecode, SeveralTopicsKeepRequestOrder) {
  protocol::UpdateMetadataRequest r = full_update_metadata();
  auto second = r.topic_states[0];
  second.topic_name = "audit";
  second.topic_id = id_of(50);
  second.partition_states[0].partition_index = 0;
  r.topic_states.push_back(second);
  auto c = decode_update_metadata(round_trip(r, 8), 8);
  ASSERT_TRUE(c.is_ok());
  ASSERT_EQ(c->update.partitions.size(), 2u);
  EXPECT_EQ(c->update.partitions[0].tp, TopicPartition("orders", 1));
  EXPECT_EQ(c->update.partitions[1].tp, TopicPartition("audit", 0));
  EXPECT_EQ(c->update.partitions[1].topic_id, id_of(50));
}

TEST(UpdateMetadataDecode, UnknownSecurityProtocolIsAnInvalidRequest) {
  protocol::UpdateMetadataRequest r = full_update_metadata();
  r.live_brokers[0].endpoints[1].security_protocol = 9;
  auto c = decode_update_metadata(round_trip(r, 8), 8);
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.status().kafka_code(), protocol::to_int(ErrorCode::kInvalidRequest));
  EXPECT_NE(c.status().message().find("unknown security protocol 9"), std::string::npos);
}

TEST(UpdateMetadataResponseBuild, CarriesTheErrorAtEveryVersion) {
  for (int16_t v : {0, 6, 8}) {
    auto resp = round_trip(update_metadata_response(ErrorCode::kStaleControllerEpoch), v);
    EXPECT_EQ(resp.error_code, ErrorCode::kStaleControllerEpoch);
  }
}

// ------------------------------------------------------------- LeaderAndIsr

protocol::LeaderAndIsrRequest full_leader_and_isr() {
  protocol::LeaderAndIsrRequest r;
  r.controller_id = 1;
  r.is_k_raft_controller = true;
  r.controller_epoch = 5;
  r.broker_epoch = 777;
  r.type = 1;
  protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState s;
  s.topic_name = "orders";
  s.partition_index = 2;
  s.controller_epoch = 4;
  s.leader = 1;
  s.leader_epoch = 8;
  s.isr = {1, 2};
  s.partition_epoch = 12;
  s.replicas = {1, 2, 3};
  s.adding_replicas = {3};
  s.removing_replicas = {2};
  s.is_new = true;
  s.leader_recovery_state = 1;
  r.ungrouped_partition_states.push_back(s);
  protocol::LeaderAndIsrRequest::LeaderAndIsrTopicState t;
  t.topic_name = "orders";
  t.topic_id = id_of(7);
  s.topic_name.clear();
  t.partition_states.push_back(s);
  r.topic_states.push_back(t);
  r.live_leaders.push_back({1, "h1", 9092});
  return r;
}

LeaderAndIsrPartitionCommand expected_lai(int16_t version) {
  LeaderAndIsrPartitionCommand p;
  p.partition = TopicPartition("orders", 2);
  if (version >= 5) p.topic_id = id_of(7);
  p.controller_epoch = 4;
  p.leader = 1;
  p.leader_epoch = 8;
  p.isr = {1, 2};
  p.partition_epoch = 12;
  p.replicas = {1, 2, 3};
  if (version >= 3) {
    p.adding_replicas = {3};
    p.removing_replicas = {2};
  }
  p.is_new = version >= 1;
  p.leader_recovery_state = version >= 6 ? 1 : 0;
  return p;
}

TEST(LeaderAndIsrDecode, EveryVersionReadsItsFields) {
  for (int16_t v = 0; v <= 7; ++v) {
    SCOPED_TRACE("v" + std::to_string(v));
    LeaderAndIsrCommand c = decode_leader_and_isr(round_trip(full_leader_and_isr(), v), v);
    EXPECT_EQ(c.controller_id, 1);
    EXPECT_EQ(c.controller_epoch, 5);
    EXPECT_EQ(c.broker_epoch, v >= 2 ? 777 : -1);
    EXPECT_EQ(c.type, v >= 5 ? 1 : 0);
    EXPECT_EQ(c.is_kraft_controller, v >= 7);
    ASSERT_EQ(c.partitions.size(), 1u);
    EXPECT_EQ(c.partitions[0], expected_lai(v));
    EXPECT_EQ(c.live_leaders, (std::vector<LiveLeaderEndpoint>{{1, "h1", 9092}}));
  }
}

TEST(LeaderAndIsrDecode, V0ExactValues) {
  LeaderAndIsrCommand c = decode_leader_and_isr(round_trip(full_leader_and_isr(), 0), 0);
  ASSERT_EQ(c.partitions.size(), 1u);
  const auto& p = c.partitions[0];
  EXPECT_EQ(p.partition, TopicPartition("orders", 2));
  EXPECT_EQ(p.topic_id, TopicId{});
  EXPECT_EQ(p.isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(p.partition_epoch, 12);
  EXPECT_TRUE(p.adding_replicas.empty());
  EXPECT_FALSE(p.is_new);
}

LeaderAndIsrCommand two_topic_command() {
  LeaderAndIsrCommand c;
  LeaderAndIsrPartitionCommand a;
  a.partition = TopicPartition("a", 0);
  a.topic_id = id_of(10);
  LeaderAndIsrPartitionCommand b;
  b.partition = TopicPartition("b", 3);
  b.topic_id = id_of(20);
  LeaderAndIsrPartitionCommand a1 = a;
  a1.partition.partition = 1;
  c.partitions = {a, b, a1};
  return c;
}

TEST(LeaderAndIsrResponseBuild, UngroupedBeforeV5) {
  LeaderAndIsrCommand c = two_topic_command();
  std::vector<PartitionErrorCode> errors = {{TopicPartition("a", 0), ErrorCode::kNone},
                                            {TopicPartition("b", 3), ErrorCode::kStaleControllerEpoch}};
  for (int16_t v : {0, 4}) {
    auto resp = round_trip(leader_and_isr_response(c, ErrorCode::kNone, errors, v), v);
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    ASSERT_EQ(resp.partition_errors.size(), 2u);
    EXPECT_EQ(resp.partition_errors[0].topic_name, "a");
    EXPECT_EQ(resp.partition_errors[0].partition_index, 0);
    EXPECT_EQ(resp.partition_errors[0].error_code, ErrorCode::kNone);
    EXPECT_EQ(resp.partition_errors[1].topic_name, "b");
    EXPECT_EQ(resp.partition_errors[1].partition_index, 3);
    EXPECT_EQ(resp.partition_errors[1].error_code, ErrorCode::kStaleControllerEpoch);
    EXPECT_TRUE(resp.topics.empty());
  }
}

TEST(LeaderAndIsrResponseBuild, GroupedByTopicIdFromV5) {
  LeaderAndIsrCommand c = two_topic_command();
  std::vector<PartitionErrorCode> errors = {{TopicPartition("a", 0), ErrorCode::kNone},
                                            {TopicPartition("b", 3), ErrorCode::kUnknownTopicOrPartition},
                                            {TopicPartition("a", 1), ErrorCode::kKafkaStorageError}};
  for (int16_t v : {5, 7}) {
    auto resp = round_trip(leader_and_isr_response(c, ErrorCode::kNone, errors, v), v);
    EXPECT_TRUE(resp.partition_errors.empty());
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].topic_id, id_of(10));
    ASSERT_EQ(resp.topics[0].partition_errors.size(), 2u);
    EXPECT_EQ(resp.topics[0].partition_errors[0].partition_index, 0);
    EXPECT_EQ(resp.topics[0].partition_errors[0].error_code, ErrorCode::kNone);
    EXPECT_EQ(resp.topics[0].partition_errors[1].partition_index, 1);
    EXPECT_EQ(resp.topics[0].partition_errors[1].error_code, ErrorCode::kKafkaStorageError);
    EXPECT_EQ(resp.topics[1].topic_id, id_of(20));
    ASSERT_EQ(resp.topics[1].partition_errors.size(), 1u);
    EXPECT_EQ(resp.topics[1].partition_errors[0].partition_index, 3);
    EXPECT_EQ(resp.topics[1].partition_errors[0].error_code, ErrorCode::kUnknownTopicOrPartition);
  }
}

TEST(LeaderAndIsrResponseBuild, ErrorResponseGivesEveryPartitionTheError) {
  LeaderAndIsrCommand c = two_topic_command();
  auto resp = round_trip(leader_and_isr_error_response(c, ErrorCode::kStaleBrokerEpoch, 7), 7);
  EXPECT_EQ(resp.error_code, ErrorCode::kStaleBrokerEpoch);
  ASSERT_EQ(resp.topics.size(), 2u);
  ASSERT_EQ(resp.topics[0].partition_errors.size(), 2u);
  for (const auto& t : resp.topics) {
    for (const auto& e : t.partition_errors) EXPECT_EQ(e.error_code, ErrorCode::kStaleBrokerEpoch);
  }
  auto old = round_trip(leader_and_isr_error_response(c, ErrorCode::kStaleControllerEpoch, 1), 1);
  ASSERT_EQ(old.partition_errors.size(), 3u);
  EXPECT_EQ(old.partition_errors[2].topic_name, "a");
  EXPECT_EQ(old.partition_errors[2].partition_index, 1);
  EXPECT_EQ(old.partition_errors[2].error_code, ErrorCode::kStaleControllerEpoch);
}

// -------------------------------------------------------------- StopReplica

protocol::StopReplicaRequest full_stop_replica() {
  protocol::StopReplicaRequest r;
  r.controller_id = 1;
  r.is_k_raft_controller = true;
  r.controller_epoch = 3;
  r.broker_epoch = 99;
  r.delete_partitions = true;
  r.ungrouped_partitions = {{"t", 0}, {"u", 4}};
  r.topics = {{"t", {0, 1}}, {"u", {4}}};
  protocol::StopReplicaRequest::StopReplicaTopicState ts;
  ts.topic_name = "t";
  ts.partition_states = {{0, 6, true}, {1, -2, false}};
  r.topic_states.push_back(ts);
  return r;
}

TEST(StopReplicaDecode, V0UngroupedWithTheRequestFlag) {
  StopReplicaCommand c = decode_stop_replica(round_trip(full_stop_replica(), 0), 0);
  EXPECT_EQ(c.controller_id, 1);
  EXPECT_EQ(c.controller_epoch, 3);
  EXPECT_EQ(c.broker_epoch, -1);
  EXPECT_EQ(c.partitions, (std::vector<StopReplicaPartitionCommand>{{TopicPartition("t", 0), -1, true},
                                                                     {TopicPartition("u", 4), -1, true}}));
}

TEST(StopReplicaDecode, V1AndV2TopicsWithIndexes) {
  for (int16_t v : {1, 2}) {
    auto wire = full_stop_replica();
    wire.delete_partitions = v == 1;
    StopReplicaCommand c = decode_stop_replica(round_trip(wire, v), v);
    EXPECT_EQ(c.broker_epoch, 99);
    EXPECT_EQ(c.partitions, (std::vector<StopReplicaPartitionCommand>{{TopicPartition("t", 0), -1, v == 1},
                                                                       {TopicPartition("t", 1), -1, v == 1},
                                                                       {TopicPartition("u", 4), -1, v == 1}}));
  }
}

TEST(StopReplicaDecode, V3AndV4PerPartitionEpochAndDelete) {
  for (int16_t v : {3, 4}) {
    StopReplicaCommand c = decode_stop_replica(round_trip(full_stop_replica(), v), v);
    EXPECT_EQ(c.broker_epoch, 99);
    EXPECT_EQ(c.is_kraft_controller, v == 4);
    EXPECT_EQ(c.partitions, (std::vector<StopReplicaPartitionCommand>{{TopicPartition("t", 0), 6, true},
                                                                       {TopicPartition("t", 1), -2, false}}));
  }
}

TEST(StopReplicaResponseBuild, PartitionErrorsAndErrorResponse) {
  std::vector<PartitionErrorCode> errors = {{TopicPartition("t", 0), ErrorCode::kNone},
                                            {TopicPartition("t", 1), ErrorCode::kFencedLeaderEpoch}};
  for (int16_t v : {0, 2, 4}) {
    auto resp = round_trip(stop_replica_response(ErrorCode::kNone, errors), v);
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    ASSERT_EQ(resp.partition_errors.size(), 2u);
    EXPECT_EQ(resp.partition_errors[1].topic_name, "t");
    EXPECT_EQ(resp.partition_errors[1].partition_index, 1);
    EXPECT_EQ(resp.partition_errors[1].error_code, ErrorCode::kFencedLeaderEpoch);
  }
  StopReplicaCommand c = decode_stop_replica(round_trip(full_stop_replica(), 4), 4);
  auto err = round_trip(stop_replica_error_response(c, ErrorCode::kStaleControllerEpoch), 4);
  EXPECT_EQ(err.error_code, ErrorCode::kStaleControllerEpoch);
  ASSERT_EQ(err.partition_errors.size(), 2u);
  EXPECT_EQ(err.partition_errors[0].error_code, ErrorCode::kStaleControllerEpoch);
  EXPECT_EQ(err.partition_errors[1].error_code, ErrorCode::kStaleControllerEpoch);
}

}  // namespace
}  // namespace spool::cluster
