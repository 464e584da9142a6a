// The controller's reading of AlterPartition (v0-3) and ControlledShutdown
// (v0-3) requests and its responses, through the generated encode/decode.
#include "cluster/controller/controller_requests_wire.h"

#include <gtest/gtest.h>

#include "cluster/alter_partition_wire.h"
#include "cluster/wire_round_trip.h"

namespace spool::cluster::controller {
namespace {

using protocol::ErrorCode;
using testing::id_of;
using testing::round_trip;

std::vector<cluster::AlterPartitionEntry> entries() {
  return {
      {TopicPartition("a", 0), id_of(10), 5, {1, 2}, 8, 1},
      {TopicPartition("ghost", 3), id_of(66), 1, {3}, 2, 0},
      {TopicPartition("a", 1), id_of(10), 6, {2, 1}, 9, 0},
  };
}

TopicNameLookup names() {
  return [](const TopicId& id) -> std::optional<std::string> {
    if (id == id_of(10)) return std::string("a");
    return std::nullopt;
  };
}

protocol::AlterPartitionRequest wire(int16_t version) {
  return round_trip(cluster::alter_partition_request(4, 1234, entries(), version), version);
}

TEST(AlterPartitionFromWire, V0ByNames) {
  AlterPartitionInput in = alter_partition_from_wire(wire(0), 0, names());
  EXPECT_EQ(in.request.broker_id, 4);
  EXPECT_EQ(in.request.broker_epoch, 1234);
  ASSERT_EQ(in.request.partitions.size(), 3u);  // names need no lookup
  EXPECT_EQ(in.request.partitions[0].partition, TopicPartition("a", 0));
  EXPECT_EQ(in.request.partitions[0].leader_epoch, 5);
  EXPECT_EQ(in.request.partitions[0].new_isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(in.request.partitions[0].partition_epoch, 8);
  EXPECT_EQ(in.request.partitions[0].leader_recovery_state, LeaderRecoveryState::kRecovered);  // not in v0
  EXPECT_EQ(in.request.partitions[2].partition, TopicPartition("ghost", 3));
  ASSERT_EQ(in.topics.size(), 2u);
  EXPECT_EQ(in.topics[0].name, "a");
  EXPECT_EQ(in.topics[0].partitions, (std::vector<int32_t>{0, 1}));
}

TEST(AlterPartitionFromWire, V2UnknownTopicIdIsLeftOut) {
  AlterPartitionInput in = alter_partition_from_wire(wire(2), 2, names());
  ASSERT_EQ(in.request.partitions.size(), 2u);
  EXPECT_EQ(in.request.partitions[0].partition, TopicPartition("a", 0));
  EXPECT_EQ(in.request.partitions[0].leader_recovery_state, LeaderRecoveryState::kRecovering);
  EXPECT_EQ(in.request.partitions[1].partition, TopicPartition("a", 1));
  ASSERT_EQ(in.topics.size(), 2u);
  EXPECT_EQ(in.topics[1].name, "");
  EXPECT_EQ(in.topics[1].id, id_of(66));
  EXPECT_EQ(in.resolved_ids, (std::map<std::string, TopicId>{{"a", id_of(10)}}));
}

TEST(AlterPartitionFromWire, V3ReadsBrokerIdsOfBrokerStates) {
  AlterPartitionInput in = alter_partition_from_wire(wire(3), 3, names());
  ASSERT_EQ(in.request.partitions.size(), 2u);
  EXPECT_EQ(in.request.partitions[1].new_isr, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(in.request.partitions[1].partition_epoch, 9);
}

AlterPartitionResult result() {
  AlterPartitionResult r;
  AlterPartitionItemResult ok;
  ok.partition = TopicPartition("a", 0);
  ok.state = LeaderAndIsr{1, 5, {1, 2}, LeaderRecoveryState::kRecovering, 9};
  AlterPartitionItemResult bad;
  bad.partition = TopicPartition("a", 1);
  bad.error = ErrorCode::kInvalidUpdateVersion;
  r.partitions = {ok, bad};
  return r;
}

TEST(AlterPartitionResponseBuild, V2ByIdWithUnknownTopicId) {
  for (int16_t v : {2, 3}) {
    SCOPED_TRACE("v" + std::to_string(v));
    AlterPartitionInput in = alter_partition_from_wire(wire(v), v, names());
    auto resp = round_trip(alter_partition_response(in, result()), v);
    EXPECT_EQ(resp.error_code, ErrorCode::kNone);
    ASSERT_EQ(resp.topics.size(), 2u);
    EXPECT_EQ(resp.topics[0].topic_id, id_of(10));
    ASSERT_EQ(resp.topics[0].partitions.size(), 2u);
    const auto& p = resp.topics[0].partitions[0];
    EXPECT_EQ(p.partition_index, 0);
    EXPECT_EQ(p.error_code, ErrorCode::kNone);
    EXPECT_EQ(p.leader_id, 1);
    EXPECT_EQ(p.leader_epoch, 5);
    EXPECT_EQ(p.isr, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(p.leader_recovery_state, 1);
    EXPECT_EQ(p.partition_epoch, 9);
    EXPECT_EQ(resp.topics[0].partitions[1].error_code, ErrorCode::kInvalidUpdateVersion);
    EXPECT_EQ(resp.topics[1].topic_id, id_of(66));
    ASSERT_EQ(resp.topics[1].partitions.size(), 1u);
    EXPECT_EQ(resp.topics[1].partitions[0].partition_index, 3);
    EXPECT_EQ(resp.topics[1].partitions[0].error_code, ErrorCode::kUnknownTopicId);

    // And the leader reads it back.
    auto reply = cluster::parse_alter_partition_response(resp, v, entries());
    ASSERT_EQ(reply.partitions.size(), 3u);
    EXPECT_EQ(reply.partitions[0].isr, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(reply.partitions[1].error, ErrorCode::kUnknownTopicId);
    EXPECT_EQ(reply.partitions[2].error, ErrorCode::kInvalidUpdateVersion);
  }
}

TEST(AlterPartitionResponseBuild, V0ByNameWithoutRecoveryState) {
  AlterPartitionInput in = alter_partition_from_wire(wire(0), 0, names());
  auto resp = round_trip(alter_partition_response(in, result()), 0);
  ASSERT_EQ(resp.topics.size(), 2u);
  EXPECT_EQ(resp.topics[0].topic_name, "a");
  EXPECT_EQ(resp.topics[0].partitions[0].leader_recovery_state, 0);
  EXPECT_EQ(resp.topics[1].topic_name, "ghost");
  // The controller gave no result for ghost-3.
  EXPECT_EQ(resp.topics[1].partitions[0].error_code, ErrorCode::kUnknownServerError);
}

TEST(AlterPartitionResponseBuild, TopLevelErrorHasNoTopics) {
  AlterPartitionInput in = alter_partition_from_wire(wire(3), 3, names());
  AlterPartitionResult r;
  r.error = ErrorCode::kStaleBrokerEpoch;
  auto resp = round_trip(alter_partition_response(in, r), 3);
  EXPECT_EQ(resp.error_code, ErrorCode::kStaleBrokerEpoch);
  EXPECT_TRUE(resp.topics.empty());
}

TEST(ControlledShutdownWire, EpochFromV2AndRemainingPartitions) {
  protocol::ControlledShutdownRequest req;
  req.broker_id = 3;
  req.broker_epoch = 42;
  EXPECT_EQ(controlled_shutdown_from_wire(round_trip(req, 0), 0), (ControlledShutdownInput{3, -1}));
  EXPECT_EQ(controlled_shutdown_from_wire(round_trip(req, 1), 1), (ControlledShutdownInput{3, -1}));
  EXPECT_EQ(controlled_shutdown_from_wire(round_trip(req, 2), 2), (ControlledShutdownInput{3, 42}));
  EXPECT_EQ(controlled_shutdown_from_wire(round_trip(req, 3), 3), (ControlledShutdownInput{3, 42}));
  ControlledShutdownResult result;
  result.error = ErrorCode::kNone;
  result.remaining = {{"a", 0}, {"b", 2}};
  auto resp = round_trip(controlled_shutdown_response(result), 3);
  EXPECT_EQ(resp.error_code, ErrorCode::kNone);
  ASSERT_EQ(resp.remaining_partitions.size(), 2u);
  EXPECT_EQ(resp.remaining_partitions[1].topic_name, "b");
  EXPECT_EQ(resp.remaining_partitions[1].partition_index, 2);
  EXPECT_EQ(cluster::parse_controlled_shutdown_response(resp).remaining,
            (std::vector<TopicPartition>{{"a", 0}, {"b", 2}}));
  result.error = ErrorCode::kNotController;
  result.remaining.clear();
  EXPECT_EQ(round_trip(controlled_shutdown_response(result), 0).error_code, ErrorCode::kNotController);
}

}  // namespace
}  // namespace spool::cluster::controller
