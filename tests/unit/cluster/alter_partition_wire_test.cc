// The leader's AlterPartition (v0-3) and ControlledShutdown (v3) messages:
// built from values, through the generated encode/decode, and the
// controller's answers parsed back.
#include "cluster/alter_partition_wire.h"

#include <gtest/gtest.h>

#include "wire_round_trip.h"

namespace spool::cluster {
namespace {

using protocol::ErrorCode;
using testing::id_of;
using testing::round_trip;

std::vector<AlterPartitionEntry> entries() {
  return {
      {TopicPartition("a", 0), id_of(10), 5, {1, 2}, 8, 0},
      {TopicPartition("b", 2), id_of(20), 1, {3}, 2, 1},
      {TopicPartition("a", 1), id_of(10), 6, {2, 1, 3}, 9, 0},
  };
}

TEST(AlterPartitionMaxVersion, TopicIdsGateV2) {
  EXPECT_EQ(alter_partition_max_version(entries()), 3);
  auto e = entries();
  e[1].topic_id = TopicId{};
  EXPECT_EQ(alter_partition_max_version(e), 1);
  EXPECT_EQ(alter_partition_max_version({}), 3);
}

TEST(AlterPartitionRequestBuild, V0NamesAndNewIsr) {
  auto r = round_trip(alter_partition_request(4, 1234, entries(), 0), 0);
  EXPECT_EQ(r.broker_id, 4);
  EXPECT_EQ(r.broker_epoch, 1234);
  ASSERT_EQ(r.topics.size(), 2u);
  EXPECT_EQ(r.topics[0].topic_name, "a");
  EXPECT_EQ(r.topics[0].topic_id, TopicId{});
  ASSERT_EQ(r.topics[0].partitions.size(), 2u);
  EXPECT_EQ(r.topics[0].partitions[0].partition_index, 0);
  EXPECT_EQ(r.topics[0].partitions[0].leader_epoch, 5);
  EXPECT_EQ(r.topics[0].partitions[0].new_isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(r.topics[0].partitions[0].partition_epoch, 8);
  EXPECT_EQ(r.topics[0].partitions[1].partition_index, 1);
  EXPECT_EQ(r.topics[0].partitions[1].new_isr, (std::vector<int32_t>{2, 1, 3}));
  EXPECT_EQ(r.topics[1].topic_name, "b");
  EXPECT_EQ(r.topics[1].partitions[0].leader_recovery_state, 0);  // not in v0
}

TEST(AlterPartitionRequestBuild, V1RecoveryStateV2TopicIds) {
  auto v1 = round_trip(alter_partition_request(4, 1234, entries(), 1), 1);
  EXPECT_EQ(v1.topics[1].partitions[0].leader_recovery_state, 1);
  EXPECT_EQ(v1.topics[1].topic_name, "b");
  auto v2 = round_trip(alter_partition_request(4, 1234, entries(), 2), 2);
  EXPECT_EQ(v2.topics[0].topic_name, "");
  EXPECT_EQ(v2.topics[0].topic_id, id_of(10));
  EXPECT_EQ(v2.topics[1].topic_id, id_of(20));
  EXPECT_EQ(v2.topics[0].partitions[0].new_isr, (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(v2.topics[0].partitions[0].new_isr_with_epochs.empty());
}

TEST(AlterPartitionRequestBuild, V3BrokerStatesWithUnknownEpochs) {
  auto r = round_trip(alter_partition_request(4, 1234, entries(), 3), 3);
  ASSERT_EQ(r.topics.size(), 2u);
  const auto& p = r.topics[0].partitions[1];
  EXPECT_TRUE(p.new_isr.empty());
  ASSERT_EQ(p.new_isr_with_epochs.size(), 3u);
  EXPECT_EQ(p.new_isr_with_epochs[0].broker_id, 2);
  EXPECT_EQ(p.new_isr_with_epochs[1].broker_id, 1);
  EXPECT_EQ(p.new_isr_with_epochs[2].broker_id, 3);
  for (const auto& b : p.new_isr_with_epochs) EXPECT_EQ(b.broker_epoch, -1);
  EXPECT_EQ(p.leader_epoch, 6);
  EXPECT_EQ(p.partition_epoch, 9);
}

protocol::AlterPartitionResponse response(int16_t version) {
  protocol::AlterPartitionResponse r;
  protocol::AlterPartitionResponse::TopicData a;
  a.topic_name = "a";
  a.topic_id = id_of(10);
  protocol::AlterPartitionResponse::TopicData::PartitionData ok;
  ok.partition_index = 0;
  ok.leader_id = 1;
  ok.leader_epoch = 5;
  ok.isr = {1, 2};
  ok.leader_recovery_state = 1;
  ok.partition_epoch = 9;
  a.partitions.push_back(ok);
  protocol::AlterPartitionResponse::TopicData::PartitionData bad;
  bad.partition_index = 1;
  bad.error_code = ErrorCode::kInvalidUpdateVersion;
  a.partitions.push_back(bad);
  r.topics.push_back(a);
  protocol::AlterPartitionResponse::TopicData stranger;  // not in the request
  stranger.topic_name = "zzz";
  stranger.topic_id = id_of(99);
  stranger.partitions.push_back(ok);
  r.topics.push_back(stranger);
  return round_trip(r, version);
}

TEST(AlterPartitionResponseParse, NamesAtV0IdsAtV3MissingReported) {
  for (int16_t v : {0, 1, 2, 3}) {
    SCOPED_TRACE("v" + std::to_string(v));
    AlterPartitionReply reply = parse_alter_partition_response(response(v), v, entries());
    EXPECT_EQ(reply.error, ErrorCode::kNone);
    ASSERT_EQ(reply.partitions.size(), 2u);
    const int8_t recovery = v >= 1 ? 1 : 0;
    EXPECT_EQ(reply.partitions[0],
              (AlterPartitionOutcome{TopicPartition("a", 0), ErrorCode::kNone, 1, 5, {1, 2}, 9, recovery}));
    EXPECT_EQ(reply.partitions[1].partition, TopicPartition("a", 1));
    EXPECT_EQ(reply.partitions[1].error, ErrorCode::kInvalidUpdateVersion);
    EXPECT_EQ(reply.missing, (std::vector<TopicPartition>{TopicPartition("b", 2)}));
  }
}

TEST(AlterPartitionResponseParse, TopLevelErrorHasNoPartitions) {
  protocol::AlterPartitionResponse r = response(2);
  r.error_code = ErrorCode::kNotController;
  AlterPartitionReply reply = parse_alter_partition_response(round_trip(r, 2), 2, entries());
  EXPECT_EQ(reply.error, ErrorCode::kNotController);
  EXPECT_TRUE(reply.partitions.empty());
  EXPECT_TRUE(reply.missing.empty());
}

TEST(ControlledShutdownWire, RequestAndResponse) {
  auto req = round_trip(controlled_shutdown_request(3, 555), kControlledShutdownVersion);
  EXPECT_EQ(req.broker_id, 3);
  EXPECT_EQ(req.broker_epoch, 555);
  protocol::ControlledShutdownResponse resp;
  resp.error_code = ErrorCode::kNone;
  resp.remaining_partitions = {{"a", 0}, {"b", 7}};
  auto reply = parse_controlled_shutdown_response(round_trip(resp, kControlledShutdownVersion));
  EXPECT_EQ(reply, (ControlledShutdownReply{ErrorCode::kNone, {{"a", 0}, {"b", 7}}}));
  resp.error_code = ErrorCode::kStaleBrokerEpoch;
  resp.remaining_partitions.clear();
  EXPECT_EQ(parse_controlled_shutdown_response(resp).error, ErrorCode::kStaleBrokerEpoch);
}

}  // namespace
}  // namespace spool::cluster
