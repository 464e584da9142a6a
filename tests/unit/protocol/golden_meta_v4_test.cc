// Golden byte strings for the metadata-area APIs at the versions Kafka 4.4
// added (session 5): Metadata 9-13, ListOffsets 6-11, OffsetForLeaderEpoch 4,
// DescribeTopicPartitions 0 (nullable Cursor), ApiVersions 4-5,
// DescribeCluster 1-2, DeleteTopics 4-6. Expected bytes are written by hand
// from Kafka's message specs, field by field ('|' separates fields); every
// check also decodes them back and refuses every truncation.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/describe_cluster_request.h"
#include "protocol/describe_cluster_response.h"
#include "protocol/describe_topic_partitions_request.h"
#include "protocol/describe_topic_partitions_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

constexpr const char* kIdHex = "000102030405060708090a0b0c0d0e0f";
std::string id_hex() { return kIdHex; }

Uuid test_id() {
  Uuid id{};
  for (uint8_t i = 0; i < 16; ++i) id[i] = i;
  return id;
}

// ---------------------------------------------------------------- Metadata
TEST(GoldenMetaV4, MetadataRequestV9FirstFlexible) {
  MetadataRequest m;
  m.topics.emplace().push_back({Uuid{}, std::string("t")});
  m.allow_auto_topic_creation = true;
  check_golden(m, 9, "02 | 02 74 | 00 | 01 | 00 | 00 | 00");
}

TEST(GoldenMetaV4, MetadataRequestV12AndV13ByIdWithNullName) {
  MetadataRequest m;
  m.topics.emplace().push_back({test_id(), std::nullopt});
  m.allow_auto_topic_creation = false;
  m.include_topic_authorized_operations = true;
  // No IncludeClusterAuthorizedOperations after v10.
  for (int16_t v : {12, 13}) check_golden(m, v, "02 | " + id_hex() + " | 00 | 00 | 00 | 01 | 00");
}

TEST(GoldenMetaV4, MetadataResponseV9) {
  MetadataResponse m;
  check_golden(m, 9, "00000000 | 01 | 00 | ffffffff | 01 | 80000000 | 00");
}

MetadataResponse one_topic_metadata() {
  MetadataResponse m;
  MetadataResponse::MetadataResponseBroker b;
  b.node_id = 0;
  b.host = "h";
  b.port = 9092;
  m.brokers.push_back(b);
  m.cluster_id = "c";
  m.controller_id = 0;
  MetadataResponse::MetadataResponseTopic t;
  t.name = "t";
  t.topic_id = test_id();
  MetadataResponse::MetadataResponsePartition p;
  p.leader_epoch = 0;
  p.replica_nodes = {0};
  p.isr_nodes = {0};
  t.partitions.push_back(p);
  m.topics.push_back(t);
  return m;
}

TEST(GoldenMetaV4, MetadataResponseV10TopicIdAndClusterOperations) {
  MetadataResponse m = one_topic_metadata();
  m.cluster_authorized_operations = 8096;
  check_golden(m, 10,
               "00000000 | 02 | 00000000 | 02 68 | 00002384 | 00 | 00 | 02 63 | 00000000 |"
               "02 | 0000 | 02 74 | " + id_hex() + " | 00 |"
               "02 | 0000 | 00000000 | 00000000 | 00000000 | 02 00000000 | 02 00000000 | 01 | 00 |"
               "80000000 | 00 | 00001fa0 | 00");
}

TEST(GoldenMetaV4, MetadataResponseV11DropsClusterOperations) {
  MetadataResponse m = one_topic_metadata();
  check_golden(m, 11,
               "00000000 | 02 | 00000000 | 02 68 | 00002384 | 00 | 00 | 02 63 | 00000000 |"
               "02 | 0000 | 02 74 | " + id_hex() + " | 00 |"
               "02 | 0000 | 00000000 | 00000000 | 00000000 | 02 00000000 | 02 00000000 | 01 | 00 |"
               "80000000 | 00 | 00");
}

TEST(GoldenMetaV4, MetadataResponseV13UnknownIdNullNameAndTopLevelError) {
  MetadataResponse m;
  MetadataResponse::MetadataResponseTopic t;
  t.error_code = ErrorCode::kUnknownTopicId;
  t.name = std::nullopt;
  t.topic_id = test_id();
  m.topics.push_back(t);
  check_golden(m, 12, "00000000 | 01 | 00 | ffffffff | 02 | 0064 | 00 | " + id_hex() + " | 00 | 01 | 80000000 | 00 | 00");
  m.error_code = ErrorCode::kUnknownServerError;
  check_golden(m, 13,
               "00000000 | 01 | 00 | ffffffff | 02 | 0064 | 00 | " + id_hex() + " | 00 | 01 | 80000000 | 00 |"
               "ffff | 00");
}

// ---------------------------------------------------------------- ListOffsets
ListOffsetsRequest list_offsets(int8_t isolation, int32_t current_epoch, int64_t ts) {
  ListOffsetsRequest m;
  m.replica_id = -1;
  m.isolation_level = isolation;
  ListOffsetsRequest::ListOffsetsTopic t;
  t.name = "t";
  ListOffsetsRequest::ListOffsetsPartition p;
  p.current_leader_epoch = current_epoch;
  p.timestamp = ts;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  return m;
}

TEST(GoldenMetaV4, ListOffsetsRequestV6FirstFlexible) {
  check_golden(list_offsets(0, -1, -1), 6,
               "ffffffff | 00 | 02 | 02 74 | 02 | 00000000 | ffffffff | ffffffffffffffff | 00 | 00 | 00");
}

TEST(GoldenMetaV4, ListOffsetsRequestV11TimeoutAndPendingUpload) {
  ListOffsetsRequest m = list_offsets(1, 0, -6);
  m.timeout_ms = 1000;
  check_golden(m, 11,
               "ffffffff | 01 | 02 | 02 74 | 02 | 00000000 | 00000000 | fffffffffffffffa | 00 | 00 |"
               "000003e8 | 00");
  // v9 has no TimeoutMs yet.
  ListOffsetsRequest old = list_offsets(1, 0, -5);
  check_golden(old, 9,
               "ffffffff | 01 | 02 | 02 74 | 02 | 00000000 | 00000000 | fffffffffffffffb | 00 | 00 | 00");
}

TEST(GoldenMetaV4, ListOffsetsResponseV6AndV11) {
  ListOffsetsResponse m;
  ListOffsetsResponse::ListOffsetsTopicResponse t;
  t.name = "t";
  ListOffsetsResponse::ListOffsetsPartitionResponse p;
  p.timestamp = 2005;
  p.offset = 4;
  p.leader_epoch = 0;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  for (int16_t v : {6, 7, 11})
    check_golden(m, v,
                 "00000000 | 02 | 02 74 | 02 | 00000000 | 0000 | 00000000000007d5 | 0000000000000004 |"
                 "00000000 | 00 | 00 | 00");
}

// ---------------------------------------------------------------- OffsetForLeaderEpoch
TEST(GoldenMetaV4, OffsetForLeaderEpochV4) {
  OffsetForLeaderEpochRequest req;
  req.replica_id = -1;
  OffsetForLeaderEpochRequest::OffsetForLeaderTopic t;
  t.topic = "t";
  t.partitions.push_back({0, 0, 0});
  req.topics.push_back(t);
  check_golden(req, 4, "ffffffff | 02 | 02 74 | 02 | 00000000 | 00000000 | 00000000 | 00 | 00 | 00");

  OffsetForLeaderEpochResponse resp;
  OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult r;
  r.topic = "t";
  OffsetForLeaderEpochResponse::EpochEndOffset e;
  e.leader_epoch = 0;
  e.end_offset = 7;
  r.partitions.push_back(e);
  resp.topics.push_back(r);
  check_golden(resp, 4, "00000000 | 02 | 02 74 | 02 | 0000 | 00000000 | 00000000 | 0000000000000007 | 00 | 00 | 00");
}

// ---------------------------------------------------------------- DescribeTopicPartitions
TEST(GoldenMetaV4, DescribeTopicPartitionsRequestCursorNullAndSet) {
  DescribeTopicPartitionsRequest m;
  EXPECT_EQ(m.response_partition_limit, 2000);
  check_golden(m, 0, "01 | 000007d0 | ff | 00");
  m.topics.push_back({"a"});
  m.response_partition_limit = 2;
  m.cursor = DescribeTopicPartitionsRequest::Cursor{"a", 2};
  check_golden(m, 0, "02 | 02 61 | 00 | 00000002 | 01 | 02 61 | 00000002 | 00 | 00");
}

TEST(GoldenMetaV4, DescribeTopicPartitionsResponseWithNextCursor) {
  DescribeTopicPartitionsResponse m;
  DescribeTopicPartitionsResponse::DescribeTopicPartitionsResponseTopic t;
  t.name = "a";
  t.topic_id = test_id();
  t.topic_authorized_operations = 3576;
  DescribeTopicPartitionsResponse::DescribeTopicPartitionsResponsePartition p;
  p.leader_epoch = 0;
  p.replica_nodes = {0};
  p.isr_nodes = {0};
  p.eligible_leader_replicas.emplace();  // empty, not null
  t.partitions.push_back(p);
  m.topics.push_back(t);
  m.next_cursor = DescribeTopicPartitionsResponse::Cursor{"a", 1};
  check_golden(m, 0,
               "00000000 | 02 | 0000 | 02 61 | " + id_hex() + " | 00 |"
               "02 | 0000 | 00000000 | 00000000 | 00000000 | 02 00000000 | 02 00000000 | 01 | 00 | 01 | 00 |"
               "00000df8 | 00 | 01 | 02 61 | 00000001 | 00 | 00");
  m.next_cursor.reset();
  m.topics.clear();
  check_golden(m, 0, "00000000 | 01 | ff | 00");
}

// ---------------------------------------------------------------- ApiVersions
TEST(GoldenMetaV4, ApiVersionsRequestV4AndV5) {
  ApiVersionsRequest m;
  m.client_software_name = "n";
  m.client_software_version = "1";
  check_golden(m, 4, "02 6e | 02 31 | 00");
  check_golden(m, 5, "02 6e | 02 31 | 00 | ffffffff | 00");
  m.cluster_id = "c";
  m.node_id = 0;
  check_golden(m, 5, "02 6e | 02 31 | 02 63 | 00000000 | 00");
}

TEST(GoldenMetaV4, ApiVersionsResponseV5) {
  ApiVersionsResponse m;
  m.api_keys.push_back({18, 0, 5});
  check_golden(m, 5, "0000 | 02 | 0012 0000 0005 00 | 00000000 | 00");
  ApiVersionsResponse err;
  err.error_code = ErrorCode::kRebootstrapRequired;
  check_golden(err, 5, "0081 | 01 | 00000000 | 00");
}

// ---------------------------------------------------------------- DescribeCluster
TEST(GoldenMetaV4, DescribeClusterRequestV1AndV2) {
  DescribeClusterRequest m;
  EXPECT_EQ(m.endpoint_type, 1);
  m.endpoint_type = 2;
  check_golden(m, 1, "00 | 02 | 00");
  m.include_cluster_authorized_operations = true;
  m.endpoint_type = 1;
  m.include_fenced_brokers = true;
  check_golden(m, 2, "01 | 01 | 01 | 00");
}

TEST(GoldenMetaV4, DescribeClusterResponseV1ErrorAndV2Fenced) {
  DescribeClusterResponse e;
  e.error_code = ErrorCode::kUnsupportedEndpointType;
  e.error_message = "x";
  check_golden(e, 1, "00000000 | 0073 | 02 78 | 01 | 01 | ffffffff | 01 | 80000000 | 00");

  DescribeClusterResponse m;
  m.cluster_id = "c";
  m.controller_id = 0;
  DescribeClusterResponse::DescribeClusterBroker b;
  b.broker_id = 0;
  b.host = "h";
  b.port = 9092;
  m.brokers.push_back(b);
  check_golden(m, 2,
               "00000000 | 0000 | 00 | 01 | 02 63 | 00000000 | 02 | 00000000 | 02 68 | 00002384 | 00 | 00 | 00 |"
               "80000000 | 00");
}

// ---------------------------------------------------------------- DeleteTopics
TEST(GoldenMetaV4, DeleteTopicsRequestV4NamesV6NameOrId) {
  DeleteTopicsRequest m;
  m.topic_names = {"a"};
  m.timeout_ms = 30000;
  check_golden(m, 4, "02 | 02 61 | 00007530 | 00");
  check_golden(m, 5, "02 | 02 61 | 00007530 | 00");
  DeleteTopicsRequest v6;
  v6.topics.push_back({std::nullopt, test_id()});
  v6.topics.push_back({std::string("b"), Uuid{}});
  v6.timeout_ms = 30000;
  check_golden(v6, 6,
               "03 | 00 | " + id_hex() + " | 00 | 02 62 | 00000000000000000000000000000000 | 00 | 00007530 | 00");
}

TEST(GoldenMetaV4, DeleteTopicsResponseV4V5V6) {
  DeleteTopicsResponse m;
  DeleteTopicsResponse::DeletableTopicResult r;
  r.name = "a";
  r.error_code = ErrorCode::kUnknownTopicOrPartition;
  m.responses.push_back(r);
  check_golden(m, 4, "00000000 | 02 | 02 61 | 0003 | 00 | 00");
  m.responses[0].error_message = "m";
  check_golden(m, 5, "00000000 | 02 | 02 61 | 0003 | 02 6d | 00 | 00");

  DeleteTopicsResponse v6;
  DeleteTopicsResponse::DeletableTopicResult u;
  u.name = std::nullopt;
  u.topic_id = test_id();
  u.error_code = ErrorCode::kUnknownTopicId;
  v6.responses.push_back(u);
  check_golden(v6, 6, "00000000 | 02 | 00 | " + id_hex() + " | 0064 | 00 | 00 | 00");
}

}  // namespace
}  // namespace spool::protocol
