// The controller's LeaderAndIsr / UpdateMetadata / StopReplica values on the
// wire at the lowest, first-flexible, lowest-sent and highest versions: exact
// wire fields after the generated encode/decode, the receiving broker's
// decoders (cluster/interbroker_wire.h) reading back what was sent, and the
// responses (both groupings) mapped back to partitions.
#include "cluster/controller/controller_wire.h"

#include <gtest/gtest.h>

#include "cluster/interbroker_wire.h"
#include "cluster/wire_round_trip.h"

namespace spool::cluster::controller {
namespace {

using protocol::ErrorCode;
using testing::id_of;
using testing::round_trip;

LeaderAndIsrRequest lai_request() {
  LeaderAndIsrRequest r;
  r.controller_id = 1;
  r.controller_epoch = 5;
  r.broker_epoch = 777;
  r.type = 0;
  LeaderAndIsrPartition a;
  a.partition = TopicPartition("a", 0);
  a.controller_epoch = 4;
  a.leader = 2;
  a.leader_epoch = 8;
  a.isr = {2, 3};
  a.partition_epoch = 12;
  a.replicas = {2, 3, 4};
  a.adding_replicas = {4};
  a.removing_replicas = {3};
  a.is_new = true;
  a.leader_recovery_state = LeaderRecoveryState::kRecovering;
  LeaderAndIsrPartition b = a;
  b.partition = TopicPartition("b", 1);
  b.adding_replicas.clear();
  b.removing_replicas.clear();
  b.is_new = false;
  b.leader_recovery_state = LeaderRecoveryState::kRecovered;
  LeaderAndIsrPartition a1 = a;
  a1.partition = TopicPartition("a", 1);
  r.partition_states = {a, b, a1};
  r.topic_ids = {{"a", id_of(10)}, {"b", id_of(20)}};
  r.live_leaders = {{2, "h2", 9092}};
  return r;
}

TEST(LeaderAndIsrToWire, V0Ungrouped) {
  auto w = round_trip(leader_and_isr_to_wire(lai_request(), 0), 0);
  EXPECT_EQ(w.controller_id, 1);
  EXPECT_EQ(w.controller_epoch, 5);
  EXPECT_EQ(w.broker_epoch, -1);
  EXPECT_TRUE(w.topic_states.empty());
  ASSERT_EQ(w.ungrouped_partition_states.size(), 3u);
  const auto& s = w.ungrouped_partition_states[0];
  EXPECT_EQ(s.topic_name, "a");
  EXPECT_EQ(s.partition_index, 0);
  EXPECT_EQ(s.controller_epoch, 4);
  EXPECT_EQ(s.leader, 2);
  EXPECT_EQ(s.leader_epoch, 8);
  EXPECT_EQ(s.isr, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(s.partition_epoch, 12);
  EXPECT_EQ(s.replicas, (std::vector<int32_t>{2, 3, 4}));
  EXPECT_TRUE(s.adding_replicas.empty());
  EXPECT_FALSE(s.is_new);
  EXPECT_EQ(w.ungrouped_partition_states[1].topic_name, "b");
  EXPECT_EQ(w.ungrouped_partition_states[2].topic_name, "a");
  ASSERT_EQ(w.live_leaders.size(), 1u);
  EXPECT_EQ(w.live_leaders[0].host_name, "h2");
  EXPECT_EQ(w.live_leaders[0].port, 9092);
}

TEST(LeaderAndIsrToWire, V4FirstFlexibleGroupedWithoutIds) {
  auto w = round_trip(leader_and_isr_to_wire(lai_request(), 4), 4);
  EXPECT_EQ(w.broker_epoch, 777);
  ASSERT_EQ(w.topic_states.size(), 2u);
  EXPECT_EQ(w.topic_states[0].topic_name, "a");
  EXPECT_EQ(w.topic_states[0].topic_id, TopicId{});
  ASSERT_EQ(w.topic_states[0].partition_states.size(), 2u);
  EXPECT_EQ(w.topic_states[0].partition_states[0].topic_name, "");
  EXPECT_EQ(w.topic_states[0].partition_states[1].partition_index, 1);
  EXPECT_EQ(w.topic_states[0].partition_states[0].adding_replicas, std::vector<int32_t>{4});
  EXPECT_EQ(w.topic_states[0].partition_states[0].removing_replicas, std::vector<int32_t>{3});
  EXPECT_TRUE(w.topic_states[0].partition_states[0].is_new);
  EXPECT_EQ(w.topic_states[0].partition_states[0].leader_recovery_state, 0);
  EXPECT_EQ(w.topic_states[1].topic_name, "b");
}

TEST(LeaderAndIsrToWire, V5AndV7CarryIdsAndTheBrokerReadsEverything) {
  for (int16_t v : {5, 6, 7}) {
    SCOPED_TRACE("v" + std::to_string(v));
    auto w = round_trip(leader_and_isr_to_wire(lai_request(), v), v);
    ASSERT_EQ(w.topic_states.size(), 2u);
    EXPECT_EQ(w.topic_states[0].topic_id, id_of(10));
    EXPECT_EQ(w.topic_states[1].topic_id, id_of(20));
    EXPECT_EQ(w.topic_states[0].partition_states[0].leader_recovery_state, v >= 6 ? 1 : 0);
    EXPECT_FALSE(w.is_k_raft_controller);

    LeaderAndIsrCommand c = decode_leader_and_isr(w, v);
    EXPECT_EQ(c.controller_id, 1);
    EXPECT_EQ(c.controller_epoch, 5);
    EXPECT_EQ(c.broker_epoch, 777);
    ASSERT_EQ(c.partitions.size(), 3u);
    // Grouping puts a-1 next to a-0.
    EXPECT_EQ(c.partitions[0].partition, TopicPartition("a", 0));
    EXPECT_EQ(c.partitions[1].partition, TopicPartition("a", 1));
    EXPECT_EQ(c.partitions[2].partition, TopicPartition("b", 1));
    const auto& p = c.partitions[0];
    EXPECT_EQ(p.topic_id, id_of(10));
    EXPECT_EQ(p.controller_epoch, 4);
    EXPECT_EQ(p.leader, 2);
    EXPECT_EQ(p.leader_epoch, 8);
    EXPECT_EQ(p.isr, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(p.partition_epoch, 12);
    EXPECT_EQ(p.replicas, (std::vector<int32_t>{2, 3, 4}));
    EXPECT_EQ(p.adding_replicas, std::vector<int32_t>{4});
    EXPECT_EQ(p.removing_replicas, std::vector<int32_t>{3});
    EXPECT_TRUE(p.is_new);
    EXPECT_EQ(p.leader_recovery_state, v >= 6 ? 1 : 0);
    EXPECT_EQ(c.partitions[2].topic_id, id_of(20));
  }
}

TEST(LeaderAndIsrToWire, TopicWithoutAKnownIdGetsTheZeroId) {
  LeaderAndIsrRequest r = lai_request();
  r.topic_ids = {{"a", id_of(10)}};
  auto w = round_trip(leader_and_isr_to_wire(r, 7), 7);
  EXPECT_EQ(w.topic_states[1].topic_id, TopicId{});
}

TEST(LeaderAndIsrFromWire, UngroupedAndTopicIdGroupedErrors) {
  LeaderAndIsrRequest req = lai_request();
  protocol::LeaderAndIsrResponse old;
  old.error_code = ErrorCode::kNone;
  old.partition_errors = {{"a", 0, ErrorCode::kNone}, {"b", 1, ErrorCode::kStaleControllerEpoch}};
  for (int16_t v : {0, 4}) {
    ControllerResponse r = leader_and_isr_from_wire(round_trip(old, v), v, req);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(r.partition_errors, (std::vector<PartitionError>{{{"a", 0}, ErrorCode::kNone},
                                                                {{"b", 1}, ErrorCode::kStaleControllerEpoch}}));
  }
  protocol::LeaderAndIsrResponse grouped;
  grouped.error_code = ErrorCode::kNone;
  grouped.topics.push_back({id_of(20), {{"", 1, ErrorCode::kUnknownTopicOrPartition}}});
  grouped.topics.push_back({id_of(10), {{"", 0, ErrorCode::kNone}, {"", 1, ErrorCode::kKafkaStorageError}}});
  grouped.topics.push_back({id_of(99), {{"", 0, ErrorCode::kNone}}});  // not in the request: skipped
  for (int16_t v : {5, 7}) {
    ControllerResponse r = leader_and_isr_from_wire(round_trip(grouped, v), v, req);
    EXPECT_EQ(r.partition_errors, (std::vector<PartitionError>{{{"b", 1}, ErrorCode::kUnknownTopicOrPartition},
                                                                {{"a", 0}, ErrorCode::kNone},
                                                                {{"a", 1}, ErrorCode::kKafkaStorageError}}));
  }
  protocol::LeaderAndIsrResponse stale;
  stale.error_code = ErrorCode::kStaleBrokerEpoch;
  EXPECT_EQ(leader_and_isr_from_wire(round_trip(stale, 7), 7, req).error, ErrorCode::kStaleBrokerEpoch);
}

UpdateMetadataRequest um_request() {
  UpdateMetadataRequest r;
  r.controller_id = 1;
  r.controller_epoch = 6;
  r.broker_epoch = 888;
  UpdateMetadataPartition p;
  p.partition = TopicPartition("a", 0);
  p.controller_epoch = 5;
  p.leader = 2;
  p.leader_epoch = 3;
  p.isr = {2};
  p.zk_version = 4;
  p.replicas = {2, 3};
  p.offline_replicas = {3};
  UpdateMetadataPartition q = p;
  q.partition = TopicPartition("b", 2);
  q.leader = kLeaderDuringDelete;
  q.offline_replicas.clear();
  r.partition_states = {p, q};
  r.topic_ids = {{"a", id_of(10)}, {"b", id_of(20)}};
  BrokerInfo b;
  b.id = 2;
  b.epoch = 99;
  b.endpoints = {{"INTERNAL", "h2", 9094, "SASL_SSL"}, {"PLAINTEXT", "h2", 9092, "PLAINTEXT"}};
  b.rack = "r2";
  r.live_brokers = {b};
  return r;
}

TEST(UpdateMetadataToWire, V0PlaintextHostPortUngrouped) {
  auto w = round_trip(update_metadata_to_wire(um_request(), 0), 0);
  EXPECT_EQ(w.controller_id, 1);
  EXPECT_EQ(w.controller_epoch, 6);
  EXPECT_EQ(w.broker_epoch, -1);
  ASSERT_EQ(w.ungrouped_partition_states.size(), 2u);
  EXPECT_EQ(w.ungrouped_partition_states[0].topic_name, "a");
  EXPECT_EQ(w.ungrouped_partition_states[0].zk_version, 4);
  EXPECT_TRUE(w.ungrouped_partition_states[0].offline_replicas.empty());
  EXPECT_EQ(w.ungrouped_partition_states[1].leader, -2);
  ASSERT_EQ(w.live_brokers.size(), 1u);
  EXPECT_EQ(w.live_brokers[0].v0_host, "h2");
  EXPECT_EQ(w.live_brokers[0].v0_port, 9092);
  EXPECT_TRUE(w.live_brokers[0].endpoints.empty());
}

TEST(UpdateMetadataToWire, V6FirstFlexibleGroupedWithoutIds) {
  auto w = round_trip(update_metadata_to_wire(um_request(), 6), 6);
  EXPECT_EQ(w.broker_epoch, 888);
  ASSERT_EQ(w.topic_states.size(), 2u);
  EXPECT_EQ(w.topic_states[0].topic_name, "a");
  EXPECT_EQ(w.topic_states[0].topic_id, TopicId{});
  EXPECT_EQ(w.topic_states[0].partition_states[0].offline_replicas, std::vector<int32_t>{3});
  ASSERT_EQ(w.live_brokers[0].endpoints.size(), 2u);
  EXPECT_EQ(w.live_brokers[0].endpoints[0].listener, "INTERNAL");
  EXPECT_EQ(w.live_brokers[0].endpoints[0].security_protocol, 3);
  EXPECT_EQ(w.live_brokers[0].endpoints[0].port, 9094);
  EXPECT_EQ(w.live_brokers[0].rack, std::optional<std::string>("r2"));
}

TEST(UpdateMetadataToWire, V7AndV8CarryIdsAndTheBrokerReadsEverything) {
  for (int16_t v : {7, 8}) {
    SCOPED_TRACE("v" + std::to_string(v));
    auto w = round_trip(update_metadata_to_wire(um_request(), v), v);
    EXPECT_EQ(w.topic_states[0].topic_id, id_of(10));
    EXPECT_EQ(w.topic_states[1].topic_id, id_of(20));
    auto c = cluster::decode_update_metadata(w, v);
    ASSERT_TRUE(c.is_ok()) << c.status().message();
    EXPECT_EQ(c->broker_epoch, 888);
    EXPECT_EQ(c->update.controller_id, 1);
    EXPECT_EQ(c->update.controller_epoch, 6);
    ASSERT_EQ(c->update.partitions.size(), 2u);
    cluster::PartitionMetadata want;
    want.tp = TopicPartition("a", 0);
    want.topic_id = id_of(10);
    want.controller_epoch = 5;
    want.leader = 2;
    want.leader_epoch = 3;
    want.isr = {2};
    want.partition_epoch = 4;
    want.replicas = {2, 3};
    want.offline_replicas = {3};
    EXPECT_EQ(c->update.partitions[0], want);
    EXPECT_EQ(c->update.partitions[1].leader, cluster::kLeaderDuringDelete);
    ASSERT_EQ(c->update.live_brokers.size(), 1u);
    EXPECT_EQ(c->update.live_brokers[0].id, 2);
    EXPECT_EQ(c->update.live_brokers[0].endpoints,
              (std::vector<cluster::EndPoint>{{"INTERNAL", "h2", 9094, "SASL_SSL"},
                                              {"PLAINTEXT", "h2", 9092, "PLAINTEXT"}}));
    EXPECT_EQ(c->update.live_brokers[0].rack, std::optional<std::string>("r2"));
  }
}

TEST(UpdateMetadataToWire, UnknownSecurityProtocolEndpointIsLeftOut) {
  UpdateMetadataRequest r = um_request();
  r.live_brokers[0].endpoints[0].security_protocol = "GOPHER";
  auto w = round_trip(update_metadata_to_wire(r, 8), 8);
  ASSERT_EQ(w.live_brokers[0].endpoints.size(), 1u);
  EXPECT_EQ(w.live_brokers[0].endpoints[0].listener, "PLAINTEXT");
}

TEST(UpdateMetadataFromWire, TopLevelErrorOnly) {
  protocol::UpdateMetadataResponse resp;
  resp.error_code = ErrorCode::kStaleControllerEpoch;
  ControllerResponse r = update_metadata_from_wire(round_trip(resp, 8));
  EXPECT_EQ(r.error, ErrorCode::kStaleControllerEpoch);
  EXPECT_TRUE(r.partition_errors.empty());
}

StopReplicaRequest sr_request(bool del) {
  StopReplicaRequest r;
  r.controller_id = 1;
  r.controller_epoch = 6;
  r.broker_epoch = 55;
  r.partitions = {{{"a", 0}, 4, del}, {{"b", 1}, -2, del}, {{"a", 2}, -1, del}};
  return r;
}

TEST(StopReplicaToWire, V0UngroupedWithTheFlag) {
  auto w = round_trip(stop_replica_to_wire(sr_request(true), 0), 0);
  EXPECT_EQ(w.broker_epoch, -1);
  EXPECT_TRUE(w.delete_partitions);
  ASSERT_EQ(w.ungrouped_partitions.size(), 3u);
  EXPECT_EQ(w.ungrouped_partitions[1].topic_name, "b");
  EXPECT_EQ(w.ungrouped_partitions[1].partition_index, 1);
  auto c = cluster::decode_stop_replica(w, 0);
  ASSERT_EQ(c.partitions.size(), 3u);
  EXPECT_EQ(c.partitions[2], (cluster::StopReplicaPartitionCommand{{"a", 2}, -1, true}));
}

TEST(StopReplicaToWire, V2FirstFlexibleTopicsWithIndexes) {
  auto w = round_trip(stop_replica_to_wire(sr_request(false), 2), 2);
  EXPECT_EQ(w.broker_epoch, 55);
  EXPECT_FALSE(w.delete_partitions);
  ASSERT_EQ(w.topics.size(), 2u);
  EXPECT_EQ(w.topics[0].name, "a");
  EXPECT_EQ(w.topics[0].partition_indexes, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(w.topics[1].name, "b");
  EXPECT_EQ(w.topics[1].partition_indexes, std::vector<int32_t>{1});
}

TEST(StopReplicaToWire, V3AndV4PerPartitionStates) {
  StopReplicaRequest r = sr_request(true);
  r.partitions[2].delete_partition = false;
  for (int16_t v : {3, 4}) {
    auto w = round_trip(stop_replica_to_wire(r, v), v);
    ASSERT_EQ(w.topic_states.size(), 2u);
    EXPECT_EQ(w.topic_states[0].topic_name, "a");
    ASSERT_EQ(w.topic_states[0].partition_states.size(), 2u);
    EXPECT_EQ(w.topic_states[0].partition_states[0].partition_index, 0);
    EXPECT_EQ(w.topic_states[0].partition_states[0].leader_epoch, 4);
    EXPECT_TRUE(w.topic_states[0].partition_states[0].delete_partition);
    EXPECT_EQ(w.topic_states[0].partition_states[1].leader_epoch, -1);
    EXPECT_FALSE(w.topic_states[0].partition_states[1].delete_partition);
    EXPECT_EQ(w.topic_states[1].partition_states[0].leader_epoch, -2);
    auto c = cluster::decode_stop_replica(w, v);
    EXPECT_EQ(c.broker_epoch, 55);
    EXPECT_EQ(c.partitions, (std::vector<cluster::StopReplicaPartitionCommand>{
                                {{"a", 0}, 4, true}, {{"a", 2}, -1, false}, {{"b", 1}, -2, true}}));
  }
}

TEST(StopReplicaFromWire, PartitionErrors) {
  protocol::StopReplicaResponse resp;
  resp.error_code = ErrorCode::kNone;
  resp.partition_errors = {{"a", 0, ErrorCode::kFencedLeaderEpoch}, {"b", 1, ErrorCode::kNone}};
  for (int16_t v : {0, 2, 4}) {
    ControllerResponse r = stop_replica_from_wire(round_trip(resp, v));
    EXPECT_EQ(r.partition_errors, (std::vector<PartitionError>{{{"a", 0}, ErrorCode::kFencedLeaderEpoch},
                                                                {{"b", 1}, ErrorCode::kNone}}));
  }
}

TEST(ControllerRequestCodec, ApiKeysEncodeAndDecode) {
  ControllerRequest lai = lai_request();
  ControllerRequest um = um_request();
  ControllerRequest sr = sr_request(false);
  EXPECT_EQ(controller_request_api_key(lai), 4);
  EXPECT_EQ(controller_request_api_key(um), 6);
  EXPECT_EQ(controller_request_api_key(sr), 5);

  ByteWriter w;
  encode_controller_request(lai, 7, w);
  Bytes body = w.take();
  protocol::LeaderAndIsrRequest decoded;
  ByteReader r(body);
  ASSERT_TRUE(decoded.decode(r, 7));
  EXPECT_EQ(decoded, leader_and_isr_to_wire(lai_request(), 7));

  protocol::StopReplicaResponse resp;
  resp.partition_errors = {{"a", 0, ErrorCode::kNone}};
  ByteWriter rw;
  resp.encode(rw, 4);
  Bytes rb = rw.take();
  auto got = decode_controller_response(sr, 4, rb);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->partition_errors, (std::vector<PartitionError>{{{"a", 0}, ErrorCode::kNone}}));

  Bytes truncated(rb.begin(), rb.begin() + 3);
  EXPECT_FALSE(decode_controller_response(sr, 4, truncated).has_value());
  EXPECT_FALSE(decode_controller_response(lai, 7, truncated).has_value());
  Bytes empty;
  EXPECT_FALSE(decode_controller_response(um, 8, empty).has_value());
}

}  // namespace
}  // namespace spool::cluster::controller
