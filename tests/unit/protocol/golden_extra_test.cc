// Golden byte strings for the APIs defined ahead of their handlers (groups,
// transactions, configs), at their lowest, highest and first flexible
// versions. Expected bytes are written by hand from the public protocol spec.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/join_group_request.h"
#include "protocol/join_group_response.h"
#include "protocol/leave_group_request.h"
#include "protocol/leave_group_response.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

// Common literals: "g" 0001 67 · "m" 0001 6d · "t" 0001 74 ·
// "consumer" 0008 636f6e73756d6572 · "range" 0005 72616e6765.

TEST(GoldenFindCoordinator, Request) {
  FindCoordinatorRequest m;
  m.key = "g";
  check_golden(m, 0, "0001 67");
  m.key_type = 1;
  check_golden(m, 2, "0001 67 | 01");
}

TEST(GoldenFindCoordinator, Response) {
  FindCoordinatorResponse m;
  m.node_id = 1;
  m.host = "h";
  m.port = 9092;
  check_golden(m, 0, "0000 | 00000001 | 0001 68 | 00002384");
  FindCoordinatorResponse e;
  e.error_code = ErrorCode::kCoordinatorNotAvailable;
  e.error_message = "x";
  e.node_id = -1;
  e.port = -1;
  check_golden(e, 2, "00000000 | 000f | 0001 78 | ffffffff | 0000 | ffffffff");
}

JoinGroupRequest join_request(int16_t v) {
  JoinGroupRequest m;
  m.group_id = "g";
  m.session_timeout_ms = 10000;
  if (v >= 1) m.rebalance_timeout_ms = 30000;
  if (v >= 5) m.member_id = "m";
  m.protocol_type = "consumer";
  m.protocols.push_back({"range", Bytes{1}});
  return m;
}

TEST(GoldenJoinGroup, Request) {
  check_golden(join_request(0), 0,
               "0001 67 | 00002710 | 0000 | 0008 636f6e73756d6572 | 00000001 |"
               "0005 72616e6765 | 00000001 01");
  check_golden(join_request(5), 5,
               "0001 67 | 00002710 | 00007530 | 0001 6d | ffff | 0008 636f6e73756d6572 |"
               "00000001 | 0005 72616e6765 | 00000001 01");
}

TEST(GoldenJoinGroup, Response) {
  JoinGroupResponse m;
  m.generation_id = 1;
  m.protocol_name = "range";
  m.leader = "m";
  m.member_id = "m";
  JoinGroupResponse::JoinGroupResponseMember mem;
  mem.member_id = "m";
  mem.metadata = {1};
  m.members.push_back(mem);
  check_golden(m, 0,
               "0000 | 00000001 | 0005 72616e6765 | 0001 6d | 0001 6d | 00000001 | 0001 6d |"
               "00000001 01");
  m.members[0].group_instance_id = "i";
  m.members[0].metadata.clear();
  check_golden(m, 5,
               "00000000 | 0000 | 00000001 | 0005 72616e6765 | 0001 6d | 0001 6d | 00000001 |"
               "0001 6d | 0001 69 | 00000000");
}

TEST(GoldenSyncGroup, Request) {
  SyncGroupRequest m;
  m.group_id = "g";
  m.generation_id = 1;
  m.member_id = "m";
  m.assignments.push_back({"m", Bytes{1, 2}});
  check_golden(m, 0, "0001 67 | 00000001 | 0001 6d | 00000001 | 0001 6d | 00000002 0102");
  m.assignments.clear();
  check_golden(m, 3, "0001 67 | 00000001 | 0001 6d | ffff | 00000000");
}

TEST(GoldenSyncGroup, Response) {
  SyncGroupResponse m;
  m.assignment = {1, 2};
  check_golden(m, 0, "0000 | 00000002 0102");
  SyncGroupResponse e;
  e.error_code = ErrorCode::kRebalanceInProgress;
  check_golden(e, 3, "00000000 | 001b | 00000000");
}

TEST(GoldenHeartbeat, RequestAndResponse) {
  HeartbeatRequest m;
  m.group_id = "g";
  m.generation_id = 1;
  m.member_id = "m";
  check_golden(m, 0, "0001 67 | 00000001 | 0001 6d");
  m.group_instance_id = "i";
  check_golden(m, 3, "0001 67 | 00000001 | 0001 6d | 0001 69");
  HeartbeatResponse r;
  check_golden(r, 0, "0000");
  check_golden(r, 3, "00000000 | 0000");
}

TEST(GoldenLeaveGroup, RequestAndResponse) {
  LeaveGroupRequest m;
  m.group_id = "g";
  m.member_id = "m";
  check_golden(m, 0, "0001 67 | 0001 6d");
  LeaveGroupRequest m3;
  m3.group_id = "g";
  LeaveGroupRequest::MemberIdentity id;
  id.member_id = "m";
  m3.members.push_back(id);
  check_golden(m3, 3, "0001 67 | 00000001 | 0001 6d | ffff");

  LeaveGroupResponse r;
  check_golden(r, 0, "0000");
  LeaveGroupResponse::MemberResponse mr;
  mr.member_id = "m";
  r.members.push_back(mr);
  check_golden(r, 3, "00000000 | 0000 | 00000001 | 0001 6d | ffff | 0000");
}

TEST(GoldenOffsetCommit, Request) {
  OffsetCommitRequest m;
  m.group_id = "g";
  m.generation_id_or_member_epoch = 1;
  m.member_id = "m";
  OffsetCommitRequest::OffsetCommitRequestTopic t;
  t.name = "t";
  OffsetCommitRequest::OffsetCommitRequestPartition p;
  p.committed_offset = 10;
  p.committed_metadata = "";
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 2,
               "0001 67 | 00000001 | 0001 6d | ffffffffffffffff | 00000001 | 0001 74 |"
               "00000001 | 00000000 | 000000000000000a | 0000");
  m.topics[0].partitions[0].committed_leader_epoch = 2;
  m.topics[0].partitions[0].committed_metadata = std::nullopt;
  check_golden(m, 7,
               "0001 67 | 00000001 | 0001 6d | ffff | 00000001 | 0001 74 | 00000001 |"
               "00000000 | 000000000000000a | 00000002 | ffff");
}

TEST(GoldenOffsetCommit, Response) {
  OffsetCommitResponse m;
  OffsetCommitResponse::OffsetCommitResponseTopic t;
  t.name = "t";
  t.partitions.push_back({0, ErrorCode::kNone});
  m.topics.push_back(t);
  check_golden(m, 2, "00000001 | 0001 74 | 00000001 | 00000000 | 0000");
  check_golden(m, 7, "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000");
}

TEST(GoldenOffsetFetch, Request) {
  OffsetFetchRequest m;
  m.group_id = "g";
  OffsetFetchRequest::OffsetFetchRequestTopic t;
  t.name = "t";
  t.partition_indexes = {0};
  m.topics.emplace().push_back(t);
  check_golden(m, 1, "0001 67 | 00000001 | 0001 74 | 00000001 00000000");
  OffsetFetchRequest all;  // null topics: every committed offset
  all.group_id = "g";
  check_golden(all, 6, "02 67 | 00 | 00");
  m.require_stable = true;
  check_golden(m, 7, "02 67 | 02 | 02 74 | 02 00000000 | 00 | 01 | 00");
}

TEST(GoldenOffsetFetch, Response) {
  OffsetFetchResponse m;
  OffsetFetchResponse::OffsetFetchResponseTopic t;
  t.name = "t";
  OffsetFetchResponse::OffsetFetchResponsePartition p;
  p.committed_offset = 10;
  p.metadata = "";
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 1,
               "00000001 | 0001 74 | 00000001 | 00000000 | 000000000000000a | 0000 | 0000");
  m.topics[0].partitions[0].metadata = std::nullopt;
  const char* flex =
      "00000000 | 02 | 02 74 | 02 | 00000000 | 000000000000000a | ffffffff | 00 | 0000 | 00 |"
      "00 | 0000 | 00";
  check_golden(m, 6, flex);
  check_golden(m, 7, flex);
}

TEST(GoldenListGroups, Request) {
  ListGroupsRequest m;
  check_golden(m, 0, "");
  check_golden(m, 3, "00");
  m.states_filter = {"Stable"};
  check_golden(m, 4, "02 07 537461626c65 | 00");
}

TEST(GoldenListGroups, Response) {
  ListGroupsResponse m;
  ListGroupsResponse::ListedGroup g;
  g.group_id = "g";
  g.protocol_type = "consumer";
  m.groups.push_back(g);
  check_golden(m, 0, "0000 | 00000001 | 0001 67 | 0008 636f6e73756d6572");
  check_golden(m, 3, "00000000 | 0000 | 02 | 02 67 | 09 636f6e73756d6572 | 00 | 00");
  m.groups[0].group_state = "Empty";
  check_golden(m, 4,
               "00000000 | 0000 | 02 | 02 67 | 09 636f6e73756d6572 | 06 456d707479 | 00 | 00");
}

TEST(GoldenDescribeGroups, Request) {
  DescribeGroupsRequest m;
  m.groups = {"g"};
  check_golden(m, 0, "00000001 0001 67");
  m.include_authorized_operations = true;
  check_golden(m, 4, "00000001 0001 67 | 01");
}

TEST(GoldenDescribeGroups, Response) {
  DescribeGroupsResponse m;
  DescribeGroupsResponse::DescribedGroup g;
  g.group_id = "g";
  g.group_state = "Stable";
  g.protocol_type = "consumer";
  g.protocol_data = "range";
  DescribeGroupsResponse::DescribedGroupMember mem;
  mem.member_id = "m";
  mem.client_id = "c";
  mem.client_host = "/h";
  mem.member_assignment = {1};
  g.members.push_back(mem);
  m.groups.push_back(g);
  check_golden(m, 0,
               "00000001 | 0000 | 0001 67 | 0006 537461626c65 | 0008 636f6e73756d6572 |"
               "0005 72616e6765 | 00000001 | 0001 6d | 0001 63 | 0002 2f68 | 00000000 |"
               "00000001 01");
  check_golden(m, 4,
               "00000000 | 00000001 | 0000 | 0001 67 | 0006 537461626c65 |"
               "0008 636f6e73756d6572 | 0005 72616e6765 | 00000001 | 0001 6d | ffff | 0001 63 |"
               "0002 2f68 | 00000000 | 00000001 01 | 80000000");
}

TEST(GoldenInitProducerId, Request) {
  InitProducerIdRequest m;
  m.transaction_timeout_ms = 60000;
  check_golden(m, 0, "ffff | 0000ea60");
  InitProducerIdRequest tx = m;
  tx.transactional_id = "x";
  check_golden(tx, 2, "02 78 | 0000ea60 | 00");
  check_golden(m, 4, "00 | 0000ea60 | ffffffffffffffff | ffff | 00");
}

TEST(GoldenInitProducerId, Response) {
  InitProducerIdResponse m;
  m.producer_id = 1000;
  check_golden(m, 0, "00000000 | 0000 | 00000000000003e8 | 0000");
  check_golden(m, 2, "00000000 | 0000 | 00000000000003e8 | 0000 | 00");
  check_golden(m, 4, "00000000 | 0000 | 00000000000003e8 | 0000 | 00");
}

TEST(GoldenDescribeConfigs, Request) {
  DescribeConfigsRequest m;
  DescribeConfigsRequest::DescribeConfigsResource r;
  r.resource_type = 2;
  r.resource_name = "t";
  m.resources.push_back(r);
  check_golden(m, 1, "00000001 | 02 | 0001 74 | ffffffff | 00");  // v0 was removed in Kafka 4.0
  m.resources[0].configuration_keys = std::vector<std::string>{"k"};
  m.include_synonyms = true;
  check_golden(m, 2, "00000001 | 02 | 0001 74 | 00000001 0001 6b | 01");
}

TEST(GoldenDescribeConfigs, Response) {
  DescribeConfigsResponse m;
  DescribeConfigsResponse::DescribeConfigsResult res;
  res.resource_type = 2;
  res.resource_name = "t";
  DescribeConfigsResponse::DescribeConfigsResourceResult c;
  c.name = "k";
  c.value = "v";
  res.configs.push_back(c);
  m.results.push_back(res);
  auto& c2 = m.results[0].configs[0];
  c2.config_source = 5;
  c2.synonyms.push_back({"k", "v", 5});
  check_golden(m, 2,
               "00000000 | 00000001 | 0000 | ffff | 02 | 0001 74 | 00000001 | 0001 6b |"
               "0001 76 | 00 | 05 | 00 | 00000001 | 0001 6b | 0001 76 | 05");
}

}  // namespace
}  // namespace spool::protocol
