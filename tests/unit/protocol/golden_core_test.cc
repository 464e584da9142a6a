// Golden byte strings for the served APIs at their lowest, highest and first
// flexible versions. Expected bytes are written by hand from the public
// protocol spec, field by field ('|' separates fields).
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

// ---------------------------------------------------------------- Produce
ProduceRequest produce_request(int16_t v) {
  ProduceRequest m;
  if (v >= 3) m.transactional_id = "tx";
  m.acks = v >= 3 ? -1 : 1;
  m.timeout_ms = 1000;
  ProduceRequest::TopicProduceData t;
  t.name = "t";
  t.partition_data.push_back({0, Records(Bytes{1, 2, 3})});
  if (v >= 3) t.partition_data.push_back({1, std::nullopt});
  m.topic_data.push_back(t);
  return m;
}

TEST(GoldenProduce, RequestV0) {
  check_golden(produce_request(0), 0,
               "0001 | 000003e8 | 00000001 | 0001 74 | 00000001 | 00000000 | 00000003 010203");
}

TEST(GoldenProduce, RequestV8) {
  check_golden(produce_request(8), 8,
               "0002 7478 | ffff | 000003e8 | 00000001 | 0001 74 | 00000002 |"
               "00000000 | 00000003 010203 | 00000001 | ffffffff");
}

TEST(GoldenProduce, ResponseV0) {
  ProduceResponse m;
  ProduceResponse::TopicProduceResponse t;
  t.name = "t";
  ProduceResponse::PartitionProduceResponse p;
  p.index = 0;
  p.base_offset = 5;
  p.log_append_time_ms = -1;  // default; absent in v0
  t.partition_responses.push_back(p);
  m.responses.push_back(t);
  check_golden(m, 0, "00000001 | 0001 74 | 00000001 | 00000000 | 0000 | 0000000000000005");
}

TEST(GoldenProduce, ResponseV8) {
  ProduceResponse m;
  ProduceResponse::TopicProduceResponse t;
  t.name = "t";
  ProduceResponse::PartitionProduceResponse p;
  p.index = 0;
  p.error_code = ErrorCode::kCorruptMessage;
  p.base_offset = -1;
  p.log_append_time_ms = -1;
  p.log_start_offset = 0;
  p.record_errors.push_back({2, "x"});
  t.partition_responses.push_back(p);
  m.responses.push_back(t);
  m.throttle_time_ms = 100;
  check_golden(m, 8,
               "00000001 | 0001 74 | 00000001 | 00000000 | 0002 | ffffffffffffffff |"
               "ffffffffffffffff | 0000000000000000 | 00000001 | 00000002 | 0001 78 | ffff |"
               "00000064");
}

// ---------------------------------------------------------------- Fetch
FetchRequest fetch_request(int16_t v) {
  FetchRequest m;
  m.replica_id = -1;
  m.max_wait_ms = 500;
  m.min_bytes = 1;
  m.isolation_level = v >= 11 ? 0 : (v >= 4 ? 1 : 0);
  FetchRequest::FetchTopic t;
  t.topic = "t";
  FetchRequest::FetchPartition p;
  p.fetch_offset = 7;
  p.partition_max_bytes = 1 << 20;
  if (v >= 9) p.current_leader_epoch = 3;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  if (v >= 7) m.forgotten_topics_data.push_back({"u", {}, {1, 2}});
  if (v >= 11) m.rack_id = "r1";
  return m;
}

TEST(GoldenFetch, RequestV0) {
  check_golden(fetch_request(0), 0,
               "ffffffff | 000001f4 | 00000001 | 00000001 | 0001 74 | 00000001 | 00000000 |"
               "0000000000000007 | 00100000");
}

TEST(GoldenFetch, RequestV4) {
  check_golden(fetch_request(4), 4,
               "ffffffff | 000001f4 | 00000001 | 7fffffff | 01 | 00000001 | 0001 74 | 00000001 |"
               "00000000 | 0000000000000007 | 00100000");
}

TEST(GoldenFetch, RequestV11) {
  check_golden(fetch_request(11), 11,
               "ffffffff | 000001f4 | 00000001 | 7fffffff | 00 | 00000000 | ffffffff |"
               "00000001 | 0001 74 | 00000001 | 00000000 | 00000003 | 0000000000000007 |"
               "ffffffffffffffff | 00100000 |"
               "00000001 | 0001 75 | 00000002 00000001 00000002 | 0002 7231");
}

TEST(GoldenFetch, ResponseV4) {
  FetchResponse m;
  FetchResponse::FetchableTopicResponse t;
  t.topic = "t";
  FetchResponse::PartitionData p;
  p.high_watermark = 10;
  p.last_stable_offset = 10;
  p.records = Records(Bytes{0xaa, 0xbb});
  t.partitions.push_back(p);
  m.responses.push_back(t);
  check_golden(m, 4,
               "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000 | 000000000000000a |"
               "000000000000000a | ffffffff | 00000002 aabb");
}

TEST(GoldenFetch, ResponseV11) {
  FetchResponse m;
  m.session_id = 5;
  FetchResponse::FetchableTopicResponse t;
  t.topic = "t";
  FetchResponse::FetchableTopicResponse::PartitionData p;
  p.high_watermark = 10;
  p.last_stable_offset = 8;
  p.log_start_offset = 0;
  p.aborted_transactions.emplace().push_back({3, 4});
  t.partitions.push_back(p);
  m.responses.push_back(t);
  check_golden(m, 11,
               "00000000 | 0000 | 00000005 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000 |"
               "000000000000000a | 0000000000000008 | 0000000000000000 |"
               "00000001 | 0000000000000003 | 0000000000000004 | ffffffff | ffffffff");
}

// ---------------------------------------------------------------- ListOffsets
ListOffsetsRequest list_offsets_request(int16_t v) {
  ListOffsetsRequest m;
  m.replica_id = -1;
  if (v >= 2) m.isolation_level = 1;
  ListOffsetsRequest::ListOffsetsTopic t;
  t.name = "t";
  ListOffsetsRequest::ListOffsetsPartition p;
  p.timestamp = v >= 5 ? -1 : -2;
  if (v >= 4) p.current_leader_epoch = 2;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  return m;
}

TEST(GoldenListOffsets, RequestV0) {
  check_golden(list_offsets_request(0), 0,
               "ffffffff | 00000001 | 0001 74 | 00000001 | 00000000 | fffffffffffffffe | 00000001");
}

TEST(GoldenListOffsets, RequestV1) {
  check_golden(list_offsets_request(1), 1,
               "ffffffff | 00000001 | 0001 74 | 00000001 | 00000000 | fffffffffffffffe");
}

TEST(GoldenListOffsets, RequestV5) {
  check_golden(list_offsets_request(5), 5,
               "ffffffff | 01 | 00000001 | 0001 74 | 00000001 | 00000000 | 00000002 |"
               "ffffffffffffffff");
}

TEST(GoldenListOffsets, ResponseV0) {
  ListOffsetsResponse m;
  ListOffsetsResponse::ListOffsetsTopicResponse t;
  t.name = "t";
  ListOffsetsResponse::ListOffsetsPartitionResponse p;
  p.old_style_offsets = {42, 0};
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 0,
               "00000001 | 0001 74 | 00000001 | 00000000 | 0000 | 00000002 000000000000002a"
               "0000000000000000");
}

TEST(GoldenListOffsets, ResponseV1) {
  ListOffsetsResponse m;
  ListOffsetsResponse::ListOffsetsTopicResponse t;
  t.name = "t";
  ListOffsetsResponse::ListOffsetsPartitionResponse p;
  p.timestamp = -1;
  p.offset = 42;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 1,
               "00000001 | 0001 74 | 00000001 | 00000000 | 0000 | ffffffffffffffff |"
               "000000000000002a");
}

TEST(GoldenListOffsets, ResponseV5) {
  ListOffsetsResponse m;
  ListOffsetsResponse::ListOffsetsTopicResponse t;
  t.name = "t";
  ListOffsetsResponse::ListOffsetsPartitionResponse p;
  p.timestamp = 1000;
  p.offset = 42;
  p.leader_epoch = 3;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 5,
               "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000 | 00000000000003e8 |"
               "000000000000002a | 00000003");
}

// ---------------------------------------------------------------- Metadata
TEST(GoldenMetadata, RequestV0) {
  MetadataRequest m;
  MetadataRequest::MetadataRequestTopic rt;
  rt.name = "t";
  m.topics.emplace().push_back(rt);
  check_golden(m, 0, "00000001 | 0001 74");
}

TEST(GoldenMetadata, RequestV8) {
  MetadataRequest m;  // topics null = all topics
  m.allow_auto_topic_creation = true;
  m.include_topic_authorized_operations = true;
  check_golden(m, 8, "ffffffff | 01 | 00 | 01");
}

MetadataResponse metadata_response(int16_t v) {
  MetadataResponse m;
  m.brokers.push_back({1, "h", 9092, std::nullopt});
  if (v >= 2) m.cluster_id = "c";
  if (v >= 1) m.controller_id = 1;
  MetadataResponse::MetadataResponseTopic t;
  t.name = "t";
  MetadataResponse::MetadataResponsePartition p;
  p.leader_id = 1;
  if (v >= 7) p.leader_epoch = 0;
  p.replica_nodes = {1};
  p.isr_nodes = {1};
  t.partitions.push_back(p);
  m.topics.push_back(t);
  return m;
}

TEST(GoldenMetadata, ResponseV0) {
  check_golden(metadata_response(0), 0,
               "00000001 | 00000001 | 0001 68 | 00002384 |"
               "00000001 | 0000 | 0001 74 | 00000001 | 0000 | 00000000 | 00000001 |"
               "00000001 00000001 | 00000001 00000001");
}

TEST(GoldenMetadata, ResponseV8) {
  check_golden(metadata_response(8), 8,
               "00000000 | 00000001 | 00000001 | 0001 68 | 00002384 | ffff | 0001 63 | 00000001 |"
               "00000001 | 0000 | 0001 74 | 00 | 00000001 | 0000 | 00000000 | 00000001 |"
               "00000000 | 00000001 00000001 | 00000001 00000001 | 00000000 | 80000000 |"
               "80000000");
}

// ---------------------------------------------------------------- ApiVersions
TEST(GoldenApiVersions, RequestV0) { check_golden(ApiVersionsRequest{}, 0, ""); }

TEST(GoldenApiVersions, RequestV3Flexible) {
  ApiVersionsRequest m;
  m.client_software_name = "k";
  m.client_software_version = "1";
  check_golden(m, 3, "02 6b | 02 31 | 00");
}

TEST(GoldenApiVersions, ResponseV0) {
  ApiVersionsResponse m;
  m.api_keys.push_back({18, 0, 3});
  check_golden(m, 0, "0000 | 00000001 | 0012 0000 0003");
}

TEST(GoldenApiVersions, ResponseV3FlexibleWithTaggedFields) {
  ApiVersionsResponse m;
  m.api_keys.push_back({18, 0, 3});
  m.supported_features.push_back({"f", 1, 2});
  m.finalized_features_epoch = 5;
  check_golden(m, 3,
               "0000 | 02 | 0012 0000 0003 00 | 00000000 |"
               "02 | 00 08 02 0266 0001 0002 00 | 01 08 0000000000000005");
}

// ---------------------------------------------------------------- CreateTopics
TEST(GoldenCreateTopics, RequestV2) {
  CreateTopicsRequest m;
  CreateTopicsRequest::CreatableTopic t;
  t.name = "t";
  t.num_partitions = 3;
  t.replication_factor = 1;
  t.configs.push_back({"k", std::nullopt});
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  check_golden(m, 2,
               "00000001 | 0001 74 | 00000003 | 0001 | 00000000 | 00000001 | 0001 6b | ffff |"
               "000003e8 | 00");
}

TEST(GoldenCreateTopics, RequestV4) {
  CreateTopicsRequest m;
  CreateTopicsRequest::CreatableTopic t;
  t.name = "t";
  t.num_partitions = -1;
  t.replication_factor = -1;
  t.assignments.push_back({0, {1, 2}});
  t.configs.push_back({"k", "v"});
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  m.validate_only = true;
  check_golden(m, 4,
               "00000001 | 0001 74 | ffffffff | ffff | 00000001 | 00000000 | 00000002 00000001"
               "00000002 | 00000001 | 0001 6b | 0001 76 | 000003e8 | 01");
}

TEST(GoldenCreateTopics, ResponseV2) {
  CreateTopicsResponse m;
  CreateTopicsResponse::CreatableTopicResult t;
  t.name = "t";
  t.error_code = ErrorCode::kTopicAlreadyExists;
  t.error_message = "e";
  m.topics.push_back(t);
  check_golden(m, 2, "00000000 | 00000001 | 0001 74 | 0024 | 0001 65");
}

TEST(GoldenCreateTopics, ResponseV4) {
  CreateTopicsResponse m;
  CreateTopicsResponse::CreatableTopicResult t;
  t.name = "t";
  m.topics.push_back(t);
  m.throttle_time_ms = 7;
  check_golden(m, 4, "00000007 | 00000001 | 0001 74 | 0000 | ffff");
}

// ---------------------------------------------------------------- DeleteTopics
TEST(GoldenDeleteTopics, Request) {
  DeleteTopicsRequest m;
  m.topic_names = {"a", "b"};
  m.timeout_ms = 30000;
  for (int16_t v : {0, 1, 3}) check_golden(m, v, "00000002 | 0001 61 | 0001 62 | 00007530");
}

TEST(GoldenDeleteTopics, Response) {
  DeleteTopicsResponse m;
  DeleteTopicsResponse::DeletableTopicResult r;
  r.name = "a";
  r.error_code = ErrorCode::kUnknownTopicOrPartition;
  m.responses.push_back(r);
  check_golden(m, 0, "00000001 | 0001 61 | 0003");
  check_golden(m, 1, "00000000 | 00000001 | 0001 61 | 0003");
  m.throttle_time_ms = 1;
  check_golden(m, 3, "00000001 | 00000001 | 0001 61 | 0003");
}

}  // namespace
}  // namespace spool::protocol
