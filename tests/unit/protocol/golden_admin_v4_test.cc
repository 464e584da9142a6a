// Golden byte strings for the admin APIs at Kafka 4.4's newest versions:
// CreateTopics v5/v7, DeleteRecords v0/v2, DescribeConfigs v3/v4,
// AlterConfigs v2, IncrementalAlterConfigs v1, DescribeLogDirs v2-v5 and
// CreatePartitions v2/v3 (each API's first flexible and highest version, and
// the versions that add fields). Expected bytes are written by hand from the
// public protocol spec, field by field ('|' separates fields); compact
// strings and arrays carry length + 1 as an unsigned varint, 00 = null.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/alter_configs_request.h"
#include "protocol/alter_configs_response.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

// ---------------------------------------------------------------- CreateTopics
CreateTopicsRequest create_topics_request() {
  CreateTopicsRequest m;
  CreateTopicsRequest::CreatableTopic t;
  t.name = "t";
  t.num_partitions = 3;
  t.replication_factor = 1;
  t.assignments.push_back({0, {1}});
  t.configs.push_back({"k", "v"});
  t.configs.push_back({"n", std::nullopt});
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  m.validate_only = true;
  return m;
}

TEST(GoldenAdminV4, CreateTopicsRequestV5AndV7) {
  // v5 is the first flexible version; v6 and v7 keep its request layout.
  for (int16_t v : {5, 6, 7}) {
    check_golden(create_topics_request(), v,
                 "02 | 02 74 | 00000003 | 0001 | 02 00000000 02 00000001 00 |"
                 "03 02 6b 02 76 00 02 6e 00 00 | 00 | 000003e8 | 01 | 00");
  }
}

CreateTopicsResponse create_topics_response() {
  CreateTopicsResponse m;
  m.throttle_time_ms = 0;
  CreateTopicsResponse::CreatableTopicResult t;
  t.name = "t";
  t.num_partitions = 3;
  t.replication_factor = 1;
  CreateTopicsResponse::CreatableTopicResult::CreatableTopicConfigs c;
  c.name = "k";
  c.value = "v";
  c.read_only = false;
  c.config_source = 1;
  c.is_sensitive = false;
  t.configs = std::vector{c};
  m.topics.push_back(t);
  return m;
}

TEST(GoldenAdminV4, CreateTopicsResponseV5) {
  // throttle | topics: name, error, message (null), partitions, RF,
  // configs [name, value, read_only, source, sensitive, tags], tags | tags
  check_golden(create_topics_response(), 5,
               "00000000 | 02 | 02 74 | 0000 | 00 | 00000003 | 0001 | 02 02 6b 02 76 00 01 00 00 | 00 | 00");
  // An error answer: defaults, an empty (not null) config list.
  CreateTopicsResponse e;
  CreateTopicsResponse::CreatableTopicResult t;
  t.name = "t";
  t.error_code = ErrorCode::kTopicAlreadyExists;
  t.error_message = "e";
  t.configs.emplace();
  e.topics.push_back(t);
  check_golden(e, 6, "00000000 | 02 | 02 74 | 0024 | 02 65 | ffffffff | ffff | 01 | 00 | 00");
}

TEST(GoldenAdminV4, CreateTopicsResponseV7) {
  auto m = create_topics_response();
  auto& t = m.topics[0];
  for (uint8_t i = 0; i < 16; ++i) t.topic_id[i] = static_cast<uint8_t>(i + 1);
  t.configs = std::nullopt;
  t.topic_config_error_code = ErrorCode::kTopicAuthorizationFailed;  // tag 0, 2 bytes
  check_golden(m, 7,
               "00000000 | 02 | 02 74 | 0102030405060708090a0b0c0d0e0f10 | 0000 | 00 | 00000003 | 0001 |"
               "00 | 01 00 02 001d | 00");
}

// ---------------------------------------------------------------- DeleteRecords
DeleteRecordsRequest delete_records_request() {
  DeleteRecordsRequest m;
  DeleteRecordsRequest::DeleteRecordsTopic t;
  t.name = "t";
  t.partitions.push_back({0, 10});
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  return m;
}

DeleteRecordsResponse delete_records_response() {
  DeleteRecordsResponse m;
  DeleteRecordsResponse::DeleteRecordsTopicResult t;
  t.name = "t";
  t.partitions.push_back({0, 10, ErrorCode::kOffsetOutOfRange});
  m.topics.push_back(t);
  return m;
}

TEST(GoldenAdminV4, DeleteRecordsV0AndV2) {
  check_golden(delete_records_request(), 0, "00000001 | 0001 74 | 00000001 | 00000000 | 000000000000000a | 000003e8");
  check_golden(delete_records_request(), 2, "02 | 02 74 | 02 00000000 000000000000000a 00 | 00 | 000003e8 | 00");
  check_golden(delete_records_response(), 0,
               "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 000000000000000a | 0001");
  check_golden(delete_records_response(), 2, "00000000 | 02 | 02 74 | 02 00000000 000000000000000a 0001 00 | 00 | 00");
}

// ---------------------------------------------------------------- DescribeConfigs
DescribeConfigsRequest describe_configs_request() {
  DescribeConfigsRequest m;
  DescribeConfigsRequest::DescribeConfigsResource r;
  r.resource_type = 2;
  r.resource_name = "t";
  r.configuration_keys = std::vector<std::string>{"k"};
  m.resources.push_back(r);
  m.include_synonyms = true;
  m.include_documentation = true;
  return m;
}

TEST(GoldenAdminV4, DescribeConfigsRequestV3AndV4) {
  check_golden(describe_configs_request(), 3, "00000001 | 02 | 0001 74 | 00000001 0001 6b | 01 | 01");
  check_golden(describe_configs_request(), 4, "02 | 02 | 02 74 | 02 02 6b | 00 | 01 | 01 | 00");
  // v2 has no IncludeDocumentation: only the default encodes (and decodes back).
  auto v2 = describe_configs_request();
  v2.include_documentation = false;
  check_golden(v2, 2, "00000001 | 02 | 0001 74 | 00000001 0001 6b | 01");
}

DescribeConfigsResponse describe_configs_response() {
  DescribeConfigsResponse m;
  DescribeConfigsResponse::DescribeConfigsResult res;
  res.resource_type = 2;
  res.resource_name = "t";
  DescribeConfigsResponse::DescribeConfigsResourceResult c;
  c.name = "k";
  c.value = "v";
  c.config_source = 5;
  c.synonyms.push_back({"k", "v", 5});
  c.config_type = 3;  // INT
  c.documentation = "d";
  res.configs.push_back(c);
  m.results.push_back(res);
  return m;
}

TEST(GoldenAdminV4, DescribeConfigsResponseV3AndV4) {
  // ... | name, value, read_only, source, sensitive, synonyms, type, documentation
  check_golden(describe_configs_response(), 3,
               "00000000 | 00000001 | 0000 | ffff | 02 | 0001 74 | 00000001 | 0001 6b | 0001 76 | 00 | 05 | 00 |"
               "00000001 0001 6b 0001 76 05 | 03 | 0001 64");
  check_golden(describe_configs_response(), 4,
               "00000000 | 02 | 0000 | 00 | 02 | 02 74 | 02 | 02 6b | 02 76 | 00 | 05 | 00 |"
               "02 02 6b 02 76 05 00 | 03 | 02 64 | 00 | 00 | 00");
  auto null_doc = describe_configs_response();
  null_doc.results[0].configs[0].documentation = std::nullopt;
  null_doc.results[0].configs[0].config_type = 9;  // PASSWORD
  null_doc.results[0].configs[0].value = std::nullopt;
  null_doc.results[0].configs[0].is_sensitive = true;
  null_doc.results[0].configs[0].synonyms.clear();
  check_golden(null_doc, 4, "00000000 | 02 | 0000 | 00 | 02 | 02 74 | 02 | 02 6b | 00 | 00 | 05 | 01 | 01 | 09 | 00 | 00 |"
                            "00 | 00");
}

// ---------------------------------------------------------------- AlterConfigs / IncrementalAlterConfigs
TEST(GoldenAdminV4, AlterConfigsV2) {
  AlterConfigsRequest m;
  AlterConfigsRequest::AlterConfigsResource r;
  r.resource_type = 2;
  r.resource_name = "t";
  r.configs.push_back({"k", "v"});
  m.resources.push_back(r);
  m.validate_only = true;
  check_golden(m, 2, "02 | 02 | 02 74 | 02 02 6b 02 76 00 | 00 | 01 | 00");
  AlterConfigsResponse resp;
  resp.responses.push_back({ErrorCode::kInvalidConfig, "e", 2, "t"});
  check_golden(resp, 2, "00000000 | 02 | 0028 | 02 65 | 02 | 02 74 | 00 | 00");
}

TEST(GoldenAdminV4, IncrementalAlterConfigsV1) {
  IncrementalAlterConfigsRequest m;
  IncrementalAlterConfigsRequest::AlterConfigsResource r;
  r.resource_type = 2;
  r.resource_name = "t";
  r.configs.push_back({"k", 2, "v"});          // APPEND
  r.configs.push_back({"d", 1, std::nullopt});  // DELETE, null value
  m.resources.push_back(r);
  check_golden(m, 1, "02 | 02 | 02 74 | 03 02 6b 02 02 76 00 02 64 01 00 00 | 00 | 00 | 00");
  IncrementalAlterConfigsResponse resp;
  resp.responses.push_back({ErrorCode::kNone, std::nullopt, 2, "t"});
  check_golden(resp, 1, "00000000 | 02 | 0000 | 00 | 02 | 02 74 | 00 | 00");
}

// ---------------------------------------------------------------- DescribeLogDirs
TEST(GoldenAdminV4, DescribeLogDirsRequestV2ToV5) {
  DescribeLogDirsRequest all;
  DescribeLogDirsRequest some;
  some.topics.emplace();
  some.topics->push_back({"t", {0}});
  for (int16_t v : {2, 3, 4, 5}) {
    check_golden(all, v, "00 | 00");
    check_golden(some, v, "02 | 02 74 | 02 00000000 | 00 | 00");
  }
}

DescribeLogDirsResponse describe_log_dirs_response() {
  DescribeLogDirsResponse m;
  m.error_code = ErrorCode::kClusterAuthorizationFailed;  // v3+
  DescribeLogDirsResponse::DescribeLogDirsTopic t;
  t.name = "t";
  t.partitions.push_back({0, 100, 0, false});
  DescribeLogDirsResponse::DescribeLogDirsResult r;
  r.log_dir = "/d";
  r.topics.push_back(t);
  r.total_bytes = 1000;  // v4+
  r.usable_bytes = 500;
  r.is_cordoned = true;  // v5+
  m.results.push_back(r);
  return m;
}

TEST(GoldenAdminV4, DescribeLogDirsResponseV2ToV5) {
  auto v2 = describe_log_dirs_response();
  v2.error_code = ErrorCode::kNone;
  v2.results[0].total_bytes = -1;
  v2.results[0].usable_bytes = -1;
  v2.results[0].is_cordoned = false;
  const char* dir = "02 | 0000 | 03 2f64 | 02 | 02 74 | 02 00000000 0000000000000064 0000000000000000 00 00 | 00 |";
  check_golden(v2, 2, std::string("00000000 |") + dir + "00 | 00");
  auto v3 = v2;
  v3.error_code = ErrorCode::kClusterAuthorizationFailed;
  check_golden(v3, 3, std::string("00000000 | 001f |") + dir + "00 | 00");
  auto v4 = describe_log_dirs_response();
  v4.results[0].is_cordoned = false;
  check_golden(v4, 4, std::string("00000000 | 001f |") + dir + "00000000000003e8 | 00000000000001f4 | 00 | 00");
  check_golden(describe_log_dirs_response(), 5,
               std::string("00000000 | 001f |") + dir + "00000000000003e8 | 00000000000001f4 | 01 | 00 | 00");
}

// ---------------------------------------------------------------- CreatePartitions
TEST(GoldenAdminV4, CreatePartitionsV2AndV3) {
  CreatePartitionsRequest m;
  CreatePartitionsRequest::CreatePartitionsTopic t;
  t.name = "t";
  t.count = 3;
  t.assignments.emplace();
  t.assignments->push_back({{1}});
  m.topics.push_back(t);
  t.name = "u";
  t.assignments = std::nullopt;
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  for (int16_t v : {2, 3}) {
    check_golden(m, v, "03 | 02 74 | 00000003 | 02 02 00000001 00 | 00 | 02 75 | 00000003 | 00 | 00 |"
                       "000003e8 | 00 | 00");
  }
  CreatePartitionsResponse resp;
  resp.results.push_back({"t", ErrorCode::kInvalidPartitions, "e"});
  resp.results.push_back({"u", ErrorCode::kNone, std::nullopt});
  for (int16_t v : {2, 3}) check_golden(resp, v, "00000000 | 03 | 02 74 0025 02 65 00 | 02 75 0000 00 00 | 00");
}

}  // namespace
}  // namespace spool::protocol
